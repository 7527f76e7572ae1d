import path from 'node:path';
import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, MikroORM, type Options } from '@mikro-orm/postgresql';
import { entities } from './entities/index.ts';

export const MIGRATIONS_PATH = path.join(import.meta.dirname, 'migrations');

export function ormConfig(databaseUrl: string, overrides: Partial<Options> = {}): Options {
  return defineConfig({
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    // Requests and activities each fork their own EntityManager; the global one must never be used.
    allowGlobalContext: false,
    forceUtcTimezone: true,
    pool: { max: overrides.pool?.max ?? 10 },
    // A database that accepts no connections must fail the request in seconds (503), not hold it.
    driverOptions: { connectionTimeoutMillis: 5_000 },
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

export function initOrm(databaseUrl: string, overrides: Partial<Options> = {}): Promise<MikroORM> {
  return MikroORM.init(ormConfig(databaseUrl, overrides));
}

/** Applies pending migrations; returns the names applied. */
export async function migrateUp(orm: MikroORM): Promise<string[]> {
  const applied = await orm.migrator.up();
  return applied.map((m) => m.name);
}
