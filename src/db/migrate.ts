import { loadConfig } from '../config.ts';
import { initOrm, migrateUp } from './orm.ts';

/** `npm run db:migrate`: applies pending migrations and exits. */
const config = loadConfig();
if (!config.DATABASE_URL) {
  console.error('DATABASE_URL is not set');
  process.exit(1);
}
const orm = await initOrm(config.DATABASE_URL);
try {
  const applied = await migrateUp(orm);
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
} finally {
  await orm.close();
}
