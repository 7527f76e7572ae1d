import { loadConfig } from '../config.ts';
import { initOrm } from './orm.ts';

/**
 * `npm run db:migration:create -- <name>`: diffs the entities against the committed snapshot and writes a
 * timestamped migration. Run against a database that has every existing migration applied.
 */
const config = loadConfig();
if (!config.DATABASE_URL) {
  console.error('DATABASE_URL is not set');
  process.exit(1);
}
const orm = await initOrm(config.DATABASE_URL);
try {
  await orm.migrator.up();
  const result = await orm.migrator.create(undefined, false, false, process.argv[2]);
  console.log(result.fileName ? `created ${result.fileName}` : 'no changes: entities match the migrations');
} finally {
  await orm.close();
}
