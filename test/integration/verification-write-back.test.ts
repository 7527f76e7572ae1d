/* eslint-disable @typescript-eslint/no-explicit-any -- EXPLAIN output is walked as plain JSON */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initOrm, type Orm } from '../../src/db/orm.ts';
import { STORE_SMTP_BATCH_SQL, type SmtpOutcomeRow, writeSmtpOutcomes } from '../../src/verification/repository-work.ts';
import { analyzeListIds, LEAST_ADDRESSES_TO_ANALYZE, leadsMisjudged } from '../../src/verification/repository-write-back.ts';
import { adminDatabase, createScratchDatabase } from '../support/scratch.ts';

// A database of its own: the large table and its stale statistics must not slow the other files' tests.
let orm: Orm;
let url: string;
let drop: () => Promise<void>;
const OTHER_LEADS = 200_000;
const JOB_LEADS = 10_000;

const orgId = randomUUID();
const otherList = randomUUID();
const jobList = randomUUID();
const jobId = randomUUID();

const sql = (query: string, params: unknown[] = []) => orm.em.fork().execute(query, params);

beforeAll(async () => {
  const admin = await adminDatabase();
  const db = await createScratchDatabase(admin.url, 'le_write_back');
  drop = db.drop;
  url = db.url;
  orm = await initOrm(db.url, { pool: { max: 2 } });
  // Statistics taken on empty tables and never refreshed: the planner believes both are tiny.
  for (const table of ['lead', 'verification_result'])
    await sql(`alter table ${table} set (autovacuum_enabled = false)`);
  await sql(`analyze lead`);
  await sql(`analyze verification_result`);

  await sql(`insert into organization (id, name, created_at) values (?, 'o', now())`, [orgId]);
  await sql(
    `insert into lead_list (id, organization_id, name, created_at, updated_at) values (?, ?, 'other', now(), now()), (?, ?, 'job', now(), now())`,
    [otherList, orgId, jobList, orgId],
  );
  await sql(
    `insert into verification_job (id, organization_id, list_id, verification_method, verification_stage, total_emails, created_at, updated_at)
     values (?, ?, ?, 'smtp_only', 'smtp_verifying', ?, now(), now())`,
    [jobId, orgId, jobList, JOB_LEADS],
  );
  const insertLeads = (list: string, n: number, prefix: string) =>
    sql(
      `insert into lead (id, organization_id, list_id, email, source, created_at, updated_at)
       select gen_random_uuid(), ?, ?, '${prefix}' || g || '@Example.COM', 'manual', now(), now() from generate_series(1, ?) g`,
      [orgId, list, n],
    );
  await insertLeads(otherList, OTHER_LEADS, 'Other');
  await insertLeads(jobList, JOB_LEADS, 'User');
  // Unprobed results, as the job's creation leaves them.
  await sql(
    `insert into verification_result (id, job_id, email, domain)
     select gen_random_uuid(), ?, 'user' || g || '@example.com', 'example.com' from generate_series(1, ?) g`,
    [jobId, JOB_LEADS],
  );
}, 240_000);

afterAll(async () => {
  await orm?.close();
  await drop?.();
});

function nodes(plan: any): any[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/** The job's unprobed results as a batch of Valid outcomes. */
async function batches(size: number): Promise<SmtpOutcomeRow[][]> {
  const rows = await sql(`select id from verification_result where job_id = ? order by id`, [jobId]);
  const outcomes = rows.map(
    (r): SmtpOutcomeRow => ({
      id: r.id as string,
      result: 'Valid',
      source: 'smtp',
      reason: '250 2.1.5 OK',
      mxHost: 'mx.example.com',
      mxProvider: 'other',
      mailboxProvider: 'other',
      mailboxProviderSignals: ['mx'],
      smtpCode: 250,
      enhancedCode: '2.1.5',
      attempts: 1,
      apiPending: false,
    }),
  );
  const out: SmtpOutcomeRow[][] = [];
  for (let i = 0; i < outcomes.length; i += size) out.push(outcomes.slice(i, i + size));
  return out;
}

describe('writing a job’s results onto its leads as they are stored', () => {
  it('has the lead table analyzed when the planner does not know the list, then looks each stored result up by its key', async () => {
    const [batch] = await batches(250);
    const payload = batch!.map((r) => ({ id: r.id, result: r.result, source: r.source, reason: r.reason, attempts: 1, transcript: [], api_pending: false }));
    const leadNodes = async () => {
      const [row] = await sql(`explain (format json) ${STORE_SMTP_BATCH_SQL}`, [JSON.stringify(payload), jobId]);
      return nodes((row as any)['QUERY PLAN'][0].Plan).filter((n) => n['Relation Name'] === 'lead' && n['Node Type'] !== 'ModifyTable');
    };
    // Statistics taken on the empty table: the planner believes the list holds one lead. The leads are
    // updated by primary key all the same (the lookup by address is what the analysis below is for).
    const byId = (await leadNodes()).filter((n) => n['Index Name'] === 'lead_pkey');
    expect(byId.map((n) => [n['Node Type'], String(n['Index Cond'])])).toEqual([['Index Scan', expect.stringMatching(/^\(id = \w+\.id\)$/)]]);
    // A small job is never worth an analyze, however wrong the planner is about its list.
    expect(await leadsMisjudged(orm.em.fork(), jobList, LEAST_ADDRESSES_TO_ANALYZE - 1)).toBe(false);
    expect(await leadsMisjudged(orm.em.fork(), jobList, JOB_LEADS)).toBe(true);
    await analyzeListIds(orm.em.fork());
    expect(await leadsMisjudged(orm.em.fork(), jobList, JOB_LEADS)).toBe(false);
    const onLead = await leadNodes();
    expect(onLead.length).toBeGreaterThan(0);
    for (const node of onLead) {
      // Never a scan of the table or of a whole list: the key lookup of each address, then the leads by id.
      expect(node['Node Type']).toMatch(/^Index (Only )?Scan$/);
      const cond = String(node['Index Cond']);
      if (node['Index Name'] === 'lead_pkey') expect(cond).toMatch(/^\(id = \w+\.id\)$/);
      else expect(cond).toMatch(/list_id = .*email_key/s);
    }
  });

  it('updates every lead of the list whose address a batch stored, and no other', async () => {
    let written = 0;
    for (const batch of await batches(250)) written += await writeSmtpOutcomes(orm.em.fork(), jobId, batch);
    expect(written).toBe(JOB_LEADS);
    const [mine] = await sql(
      `select count(*) filter (where email_status = 'Valid' and email_verified_at is not null)::int as valid, count(*)::int as n from lead where list_id = ?`,
      [jobList],
    );
    expect(mine).toEqual({ valid: JOB_LEADS, n: JOB_LEADS });
    const [others] = await sql(
      `select count(*)::int as n from lead where list_id = ? and email_status is not null`,
      [otherList],
    );
    expect(others).toEqual({ n: 0 });
  });

  it('wakes live progress once per statement that stores results, and not for one that stores none', async () => {
    const listener = new pg.Client({ connectionString: url });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (n) => heard.push(n.payload ?? ''));
    try {
      await listener.query('listen job_events');
      await sql(`update verification_result set reason = reason || '' where id in (select id from verification_result where job_id = ? limit 3)`, [jobId]);
      // Every address is stored by now (the test above): the batch's statement changes no row.
      const [first] = await batches(250);
      expect(await writeSmtpOutcomes(orm.em.fork(), jobId, first!)).toBe(0);
      await sql(`select pg_notify('job_events', 'end')`);
      for (let i = 0; i < 100 && !heard.includes('end'); i++) await sleep(20);
      expect(heard).toEqual([`verification:${jobId}`, 'end']);
    } finally {
      await listener.end();
    }
  });
});
