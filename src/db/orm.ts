import path from 'node:path';
import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, MikroORM, type Options } from '@mikro-orm/postgresql';
import { entities } from './entities/index.ts';
import { type DatabaseLimits, pgOptions, watchReads } from './pg-options.ts';
import { ReleasingPostgreSqlDriver } from './releasing-driver.ts';

export const MIGRATIONS_PATH = path.join(import.meta.dirname, 'migrations');

/** For the scripts (migrations, admin) that have no configured limits: connect in bounded time, no statement limit. */
const SCRIPT_LIMITS: DatabaseLimits = { connectTimeoutMs: 5_000, queryTimeoutMs: 0, keepAliveMs: 10_000 };

export function ormConfig(databaseUrl: string, overrides: Partial<Options> = {}, limits: DatabaseLimits = SCRIPT_LIMITS): Options {
  return defineConfig({
    clientUrl: databaseUrl,
    // A transaction whose connection the server cut still gives that connection back (releasing-driver.ts).
    driver: ReleasingPostgreSqlDriver,
    entities,
    extensions: [Migrator],
    // Requests and activities each fork their own EntityManager; the global one must never be used.
    allowGlobalContext: false,
    forceUtcTimezone: true,
    pool: { max: overrides.pool?.max ?? 10 },
    // A database that accepts no connections, or never answers, must fail the request in bounded time (503), not hold it.
    driverOptions: { ...pgOptions(limits), onPoolCreated: (pool: { on(event: 'connect', listener: ReturnType<typeof watchReads>): void }) => pool.on('connect', watchReads(limits)) },
    // The stored functions (smtp_lease_acquire and its batch) are SQL written in their migrations, called by raw
    // statement: no entity describes them, so the schema diff must not propose dropping them.
    schemaGenerator: { ignoreRoutines: true },
    migrations: {
      path: MIGRATIONS_PATH,
      pathTs: MIGRATIONS_PATH,
      glob: '!(*.d).ts',
      emit: 'ts',
      // Diff against the migrated database, not a snapshot file: parallel feature branches then never
      // fight over one generated JSON file, and the schema test proves entities and migrations agree.
      snapshot: false,
      silent: true,
    },
    ...overrides,
  });
}

export type Orm = MikroORM;

export function initOrm(databaseUrl: string, overrides: Partial<Options> = {}, limits?: DatabaseLimits): Promise<MikroORM> {
  return MikroORM.init(ormConfig(databaseUrl, overrides, limits));
}

/** Applies pending migrations; returns the names applied. */
export async function migrateUp(orm: MikroORM): Promise<string[]> {
  const applied = await orm.migrator.up();
  return applied.map((m) => m.name);
}
