import pg from 'pg';
import { afterAll, beforeAll, expect, it, inject } from 'vitest';
import { initOrm, type Orm } from '../../src/db/orm.ts';

// One connection in the pool: a transaction's connection lost to the pool for good would hold every later query.
let orm: Orm;
let admin: pg.Client;
beforeAll(async () => {
  orm = await initOrm(inject('databaseUrl'), { pool: { max: 1 } });
  admin = new pg.Client({ connectionString: inject('databaseUrl') });
  await admin.connect();
});
afterAll(() => admin?.end());

/** A hang shows as this failure rather than as a test timeout. */
function within<T>(pending: Promise<T>, what: string, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: still waiting after ${ms} ms`)), ms)));
  return Promise.race([pending, hung]).finally(() => clearTimeout(timer));
}

it('gives the pool back the connection of a transaction the server cut: the next query runs and the pool closes', async () => {
  const cut = orm.em.fork().transactional(async (tx) => {
    const [own] = await tx.execute<Array<{ pid: number }>>('select pg_backend_pid() as pid');
    // What a restart, a failover or an operator's kill does to a transaction in progress.
    await admin.query('select pg_terminate_backend($1)', [own!.pid]);
    await tx.execute('select 1');
  });
  await expect(cut).rejects.toThrow();
  expect(await within(orm.em.fork().execute('select 1 as ok'), 'the next query')).toEqual([{ ok: 1 }]);
  await within(orm.close(), 'closing the pool');
});
