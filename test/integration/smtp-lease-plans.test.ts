import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

/**
 * The lease statements (the body of `smtp_lease_acquire`, renewal, release, the adaptive updates) on tables of
 * 100,000+ rows, without statistics (no ANALYZE: a fresh or just-restored database), and again with them:
 * every one finds its rows through an index, never by reading the table.
 */

const HOSTS = 1_000;
const LEASES_PER_HOST = 120;

const STATEMENTS: Record<string, string> = {
  budgetLock: `select * from smtp_host_budget h where h.egress = '127.0.0.2' and h.host = 'mx500.test' for update`,
  expiredLeases: `delete from smtp_lease l where l.egress = '127.0.0.2' and l.host = 'mx500.test' and l.expires_at <= clock_timestamp()`,
  liveLeases: `select count(*) from smtp_lease l where l.egress = '127.0.0.2' and l.host = 'mx500.test'`,
  nextOpen: `update smtp_host_budget h set next_open_at = clock_timestamp() where h.egress = '127.0.0.2' and h.host = 'mx500.test'`,
  renew: `update smtp_lease set expires_at = clock_timestamp() where id = any(array['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002']::uuid[])`,
  release: `delete from smtp_lease where id = '00000000-0000-4000-8000-000000000001'`,
  throttle: `update smtp_host_budget set allowed = greatest(1, allowed / 2) where egress = '127.0.0.2' and host = 'mx500.test'`,
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

async function plan(sql: string): Promise<string> {
  const { rows } = await client.query<{ 'QUERY PLAN': string }>(`explain ${sql}`);
  return rows.map((row) => row['QUERY PLAN']).join('\n');
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
      for (const [name, sql] of Object.entries(STATEMENTS)) {
        const text = await plan(sql);
        expect({ name, seqScan: /Seq Scan/.test(text) }, text).toEqual({ name, seqScan: false });
        expect({ name, index: /Index (Only )?Scan|Bitmap Index Scan/.test(text) }, text).toEqual({ name, index: true });
      }
    });
  }
});
