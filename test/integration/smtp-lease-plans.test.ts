import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SMTP_BUDGET_SQL } from '../../src/smtp/repository-budget.ts';

/**
 * The budget statements (the row lock and slot of an acquire, renewal, release, the adaptive updates) on tables of
 * 100,000+ rows, without statistics (no ANALYZE: a fresh or just-restored database), and again with them:
 * every one finds its rows through an index, never by reading the table.
 */

const HOSTS = 1_000;
const LEASES_PER_HOST = 120;

const ID = '00000000-0000-4000-8000-000000000001';
/** The acquire function's arguments: the host in the middle of the table. */
const ACQUIRE = ['127.0.0.2', 'mx500.test', 2, ID, 'pid 1', 15_000, 0];
/** Its parameters' types, and the allowed sessions the slot statement reads from the locked row. */
const ACQUIRE_TYPES = ['varchar', 'varchar', 'int', 'uuid', 'varchar', 'int', 'int', 'int'];
/** Each statement with the values of a call (the function's own statements take its arguments). */
const CALLS: Record<Exclude<keyof typeof SMTP_BUDGET_SQL, 'acquire'> | 'lock' | 'slot', unknown[]> = {
  lock: [...ACQUIRE, 2],
  slot: [...ACQUIRE, 2],
  renew: [[ID, '00000000-0000-4000-8000-000000000002'], 15_000],
  release: [[ID]],
  throttle: ['127.0.0.2', 'mx500.test', 250],
  recover: ['127.0.0.2', 'mx500.test', 2],
  patience: ['127.0.0.2', 'mx500.test', 'tarpits'],
};

let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client({ connectionString: inject('databaseUrl') });
  await client.connect();
  // Everything below happens in a transaction that is rolled back: other test files share this database.
  await client.query('begin');
  await client.query(`
    insert into smtp_host_budget (egress, host, allowed, next_open_at, paused_until, patience, updated_at)
    select e.egress, 'mx' || g || '.test', 2, now(), now(), 'unknown', now()
    from generate_series(1, ${HOSTS * 50}) g, (values ('127.0.0.2'), ('127.0.0.3')) e(egress)`);
  await client.query(`
    insert into smtp_lease (id, egress, host, holder, expires_at)
    select gen_random_uuid(), '127.0.0.2', 'mx' || (g % ${HOSTS}) || '.test', 'pid ' || (g % 7), now() + (g % 30) * interval '1 second'
    from generate_series(1, ${HOSTS * LEASES_PER_HOST}) g`);
});

afterAll(async () => {
  await client?.query('rollback');
  await client?.end();
});

/** The plan of `sql` as prepared with `values` (EXPLAIN EXECUTE: the plan a call gets). */
async function plan(name: string, sql: string, values: unknown[], types: string[] = []): Promise<string> {
  await client.query(`prepare ${name}${types.length > 0 ? ` (${types.join(', ')})` : ''} as ${sql}`);
  try {
    const literals = values.map((v) => client.escapeLiteral(Array.isArray(v) ? `{${v.join(',')}}` : String(v)));
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`explain execute ${name}(${literals.join(', ')})`);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  } finally {
    await client.query(`deallocate ${name}`);
  }
}

/**
 * The statements of smtp_lease_acquire as the database holds them (each between its markers, `-- lock:` … `-- :lock` and `-- slot:` … `-- :slot`),
 * its variables turned into parameters after the function's own ($8: the budget's allowed sessions).
 */
async function functionStatements(): Promise<Record<'lock' | 'slot', string>> {
  const { rows } = await client.query<{ src: string }>(`select prosrc as src from pg_proc where proname = 'smtp_lease_acquire'`);
  const src = rows[0]!.src;
  const between = (marker: string) =>
    src
      .slice(src.indexOf(`-- ${marker}:`) + marker.length + 4, src.indexOf(`-- :${marker}`))
      .replace(/\binto \w+;\s*$/, '')
      .replace(/\bbudget\.allowed\b/g, '$8');
  return { lock: between('lock'), slot: between('slot') };
}

describe('the lease statements on 100,000+ rows', () => {
  it('hold 120,000 leases and 100,000 budgets', async () => {
    const { rows } = await client.query<{ leases: number; budgets: number }>(
      'select (select count(*)::int from smtp_lease) as leases, (select count(*)::int from smtp_host_budget) as budgets',
    );
    expect(rows[0]!.leases).toBeGreaterThanOrEqual(HOSTS * LEASES_PER_HOST);
    expect(rows[0]!.budgets).toBeGreaterThanOrEqual(HOSTS * 100);
  });

  for (const analyzed of [false, true]) {
    it(`use an index, ${analyzed ? 'with' : 'without'} statistics`, async () => {
      if (analyzed) await client.query('analyze smtp_lease; analyze smtp_host_budget');
      const { acquire: _acquire, ...plain } = SMTP_BUDGET_SQL;
      for (const [name, sql] of Object.entries({ ...plain, ...(await functionStatements()) })) {
        const types = name === 'lock' || name === 'slot' ? ACQUIRE_TYPES : [];
        const text = await plan(name, sql, CALLS[name as keyof typeof CALLS], types);
        expect({ name, seqScan: /Seq Scan/.test(text) }, text).toEqual({ name, seqScan: false });
        expect({ name, index: /Index (Only )?Scan|Bitmap Index Scan|Conflict Arbiter Indexes/.test(text) }, text).toEqual({ name, index: true });
      }
    });
  }
});
