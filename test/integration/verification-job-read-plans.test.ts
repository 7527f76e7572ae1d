import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { JOB_AGGREGATES_SQL } from '../../src/verification/repository.ts';

/**
 * What every read of a verification job adds to it (its list's name, its domains' counts, its spend), on tables of
 * 100,000+ rows, without statistics (no ANALYZE: a fresh or just-restored database) and with them: each table is
 * reached through an index on the job, never read whole. A client polls a job every second or two.
 */

const JOBS = 100_000;
const DOMAINS_PER_JOB = 2;
const SPEND_PER_JOB = 1;
const LISTS = 100_000;

const orgId = randomUUID();
const listId = randomUUID();
let client: pg.Client;
let jobIds: string[];

beforeAll(async () => {
  client = new pg.Client({ connectionString: inject('databaseUrl') });
  await client.connect();
  // Everything below happens in a transaction that is rolled back: other test files share this database.
  await client.query('begin');
  await client.query(`insert into organization (id, name, created_at) values ($1, 'plans', now())`, [orgId]);
  await client.query(`insert into lead_list (id, organization_id, name, created_at, updated_at) values ($1, $2, 'plans', now(), now())`, [listId, orgId]);
  await client.query(
    `insert into lead_list (id, organization_id, name, created_at, updated_at) select gen_random_uuid(), $1, 'other', now(), now() from generate_series(2, ${LISTS})`,
    [orgId],
  );
  const { rows } = await client.query<{ id: string }>(
    `insert into verification_job (id, organization_id, list_id, verification_method, verification_stage, total_emails, created_at, updated_at)
     select gen_random_uuid(), $1, $2, 'smtp_api_fallback', 'completed', ${DOMAINS_PER_JOB}, now(), now() from generate_series(1, ${JOBS})
     returning id`,
    [orgId, listId],
  );
  jobIds = rows.map((row) => row.id);
  await client.query(
    `insert into verification_domain (id, job_id, domain, seq, email_count, processed_count, valid_count)
     select gen_random_uuid(), j.id, 'd' || g || '.test', g, 1, 1, 1 from unnest($1::uuid[]) j(id), generate_series(1, ${DOMAINS_PER_JOB}) g`,
    [jobIds],
  );
  await client.query(
    `insert into verification_spend (id, organization_id, job_id, email, provider, amount_micros, created_at)
     select gen_random_uuid(), $2, j.id, 'u' || g || '@d.test', 'bench', 1000, now() from unnest($1::uuid[]) j(id), generate_series(1, ${SPEND_PER_JOB}) g`,
    [jobIds, orgId],
  );
});

afterAll(async () => {
  await client?.query('rollback');
  await client?.end();
});

/** The plan a call with `ids` gets (prepared, as the pool's bound parameters are). */
async function plan(ids: string[]): Promise<string> {
  const text = JOB_AGGREGATES_SQL.replace('?', '$1');
  await client.query(`prepare job_aggregates (uuid[]) as ${text}`);
  try {
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`explain execute job_aggregates(${client.escapeLiteral(`{${ids.join(',')}}`)})`);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  } finally {
    await client.query('deallocate job_aggregates');
  }
}

describe("a verification job's aggregates on 100,000+ rows", () => {
  it('sum the job’s own rows', async () => {
    const { rows } = await client.query(JOB_AGGREGATES_SQL.replace('?', '$1'), [[jobIds[50_000]]]);
    expect(rows).toEqual([expect.objectContaining({ job: jobIds[50_000], listName: 'plans', processed: DOMAINS_PER_JOB, valid: DOMAINS_PER_JOB, costMicros: String(SPEND_PER_JOB * 1000) })]);
  });

  for (const analyzed of [false, true]) {
    it(`reach each table through an index, ${analyzed ? 'with' : 'without'} statistics`, async () => {
      if (analyzed) await client.query('analyze verification_job; analyze verification_domain; analyze verification_spend; analyze lead_list');
      // One job (its GET, its live stream) and a page of 20 (the jobs list).
      for (const ids of [[jobIds[50_000]!], jobIds.slice(20_000, 20_020)]) {
        const text = await plan(ids);
        expect({ jobs: ids.length, seqScan: /Seq Scan/.test(text) }, text).toEqual({ jobs: ids.length, seqScan: false });
      }
    });
  }
});
