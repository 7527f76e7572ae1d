import { loadConfig } from '../config.ts';
import { initOrm } from './orm.ts';

/**
 * `npm run db:migration:create -- <name>`: applies every committed migration to DATABASE_URL (use a scratch
 * database), diffs the entities against the result and writes a timestamped migration.
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
