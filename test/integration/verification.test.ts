/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies are asserted field by field */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectError } from '../support/agent.ts';
import type { Harness } from '../support/harness.ts';
import {
  knownAddress,
  type ListedAddress,
  type MailWorld,
  STANDARD_EXPECTATIONS,
  standardAddressList,
  standardWorld,
  unknownAddress,
} from '../support/mail-world/index.ts';
import type { ZeroBounceServer } from '../../src/sandbox/providers/zerobounce.ts';
import {
  allResults,
  inStage,
  listWithEmails,
  spendRows,
  startJob,
  startVerificationWorld,
  waitForJob,
} from '../support/verification.ts';
import { eventually } from '../support/eventually.ts';
import { scheduledActivities } from '../support/history.ts';

/** Two domains whose every reply takes long enough that a job is surely still in its SMTP stage a moment after creation. */
const SLOW_DOMAINS = {
  'slowcatch.test': {
    mx: [
      {
        host: 'mx.slowcatch.test',
        preference: 10,
        ip: '127.0.0.40',
        behaviour: { catchAll: true, latencyMs: 600 },
      },
    ],
  },
  'slowgood.test': {
    mx: [
      {
        host: 'mx.slowgood.test',
        preference: 10,
        ip: '127.0.0.41',
        behaviour: { mailboxes: ['user0@slowgood.test'], latencyMs: 600 },
      },
    ],
  },
};

let world: MailWorld;
let zb: ZeroBounceServer;
let h: Harness;
let stop: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ world, zb, h, stop } = await startVerificationWorld(
    { domains: { ...standardWorld().domains, ...SLOW_DOMAINS } },
    // The slow hosts answer after 600 ms; the silent one must still time out quickly.
    { SMTP_PROBE_TIMEOUT_MS: '1500' },
  ));
});
afterAll(() => stop?.());
beforeEach(() => zb.reset());

/**
 * A lead holding an address the list holds already, in another case. Adding it is skipped (CONTRACT §15), but a list
 * can still come to hold one twice (a scrape sync, an enrichment filling emails), so it is stored in SQL.
 */
async function sameAddressAgain(organizationId: string, listId: string, email: string) {
  await h.sql(`insert into lead (id, organization_id, list_id, email, source, created_at, updated_at) values (?, ?, ?, ?, 'manual', now(), now())`, [
    randomUUID(),
    organizationId,
    listId,
    email,
  ]);
}

/** Two addresses per standard domain (one existing, one not), each with the result SMTP must give it. */
const standardList = (): ListedAddress[] => standardAddressList(32);
const gapsOf = (list: ListedAddress[]) =>
  list.filter((a) => a.expected === 'Unknown' || a.expected === 'Catch-All');

/** Provider verdicts for the gap addresses: existing mailboxes valid, others invalid; silent.test left unknown. */
function provideVerdicts(list: ListedAddress[]) {
  for (const a of gapsOf(list)) {
    if (a.domain === 'silent.test') continue;
    zb.fixtures.verdicts.set(a.email, { status: a.email.startsWith('user') ? 'valid' : 'invalid' });
  }
}

/** Addresses the stand-in was asked about, through either endpoint. */
function sentToProvider(): string[] {
  return zb.requests.flatMap((r) =>
    r.path === '/v2/validatebatch'
      ? (r.body as { email_batch: Array<{ email_address: string }> }).email_batch.map((e) => e.email_address)
      : [r.query.email ?? ''],
  );
}

function expectCountsAgree(job: any) {
  const smtpTotal = job.smtpValidCount + job.smtpInvalidCount + job.smtpCatchAllCount + job.smtpUnknownCount;
  expect(job.processedEmails).toBe(job.totalEmails);
  return smtpTotal;
}

async function decide(agent: any, jobId: string, decision: string) {
  return agent.post(`/api/verification/jobs/${jobId}/decision`, { decision });
}

describe('POST /api/verification/jobs', () => {
  it('answers 201 in smtp_verifying with zero counts, counting distinct addresses case-insensitively', async () => {
    const { agent, organizationId } = await h.signup();
    const listId = await listWithEmails(agent, ['user0@good.test', 'nobody0@good.test', null, 'not-an-address']);
    await sameAddressAgain(organizationId, listId, 'USER0@good.test');
    const job = await startJob(agent, listId, 'smtp_only');
    expect(job).toMatchObject({
      listId,
      listName: 'Prospects',
      verificationStage: 'smtp_verifying',
      verificationMethod: 'smtp_only',
      totalEmails: 3,
      processedEmails: 0,
      smtpValidCount: 0,
      smtpInvalidCount: 0,
      smtpCatchAllCount: 0,
      smtpUnknownCount: 0,
      smtpCompletedAt: null,
      coveragePercentage: 0,
      userDecision: null,
      decisionMadeAt: null,
      apiCost: 0,
      completedAt: null,
    });
    await waitForJob(agent, job.id, inStage('completed'));
  });

  it('refuses a list without any email (422), a list with a job in progress (409), another organization’s list (404)', async () => {
    const { agent } = await h.signup();
    const empty = await listWithEmails(agent, [null, null]);
    const noEmail = expectError(
      await agent.post('/api/verification/jobs', { listId: empty, verificationMethod: 'smtp_only' }),
      422,
      'unprocessable',
    );
    expect(noEmail.details).toEqual({ reason: 'no_emails' });

    const listId = await listWithEmails(agent, ['user0@slowgood.test']);
    const first = await startJob(agent, listId, 'smtp_only');
    const busy = expectError(
      await agent.post('/api/verification/jobs', { listId, verificationMethod: 'api_only' }),
      409,
      'invalid_state',
    );
    expect(busy.details.currentState).toBe('smtp_verifying');

    const other = await h.signup();
    expectError(
      await other.agent.post('/api/verification/jobs', { listId, verificationMethod: 'smtp_only' }),
      404,
      'not_found',
    );
    for (const path of ['', '/progress', '/estimate', '/results', '/results/download']) {
      expectError(await other.agent.get(`/api/verification/jobs/${first.id}${path}`), 404, 'not_found');
    }
    expectError(
      await other.agent.post(`/api/verification/jobs/${first.id}/decision`, { decision: 'accept_current' }),
      404,
      'not_found',
    );
    expectError(
      await agent.post(`/api/verification/jobs/${first.id}/decision`, { decision: 'maybe' }),
      400,
      'validation_error',
    );
    expectError(
      await agent.post('/api/verification/jobs', { listId, verificationMethod: 'smtp_fast' }),
      400,
      'validation_error',
    );

    await waitForJob(agent, first.id, inStage('completed'));
    // Once the job is over, the list may be verified again.
    const again = await startJob(agent, listId, 'smtp_only');
    await waitForJob(agent, again.id, inStage('completed'));
  });
  it('answers 404 List when the list is deleted while the POST counts the domains after its first range', async () => {
    const { agent, organizationId } = await h.signup();
    const locker = new pg.Client({ connectionString: h.config.DATABASE_URL });
    await locker.connect();
    try {
      // The POST counts the domains after its first 5,000 addresses once the workflow has started, under the job's
      // row lock. A second connection takes that lock as soon as the job is committed; if the count has not run yet
      // (else it tries again with a new list: the workflow's start was quicker than its polling), it deletes the
      // list, and the job with it, and commits while the count waits.
      for (let attempt = 1; ; attempt++) {
        const listId = (await agent.post('/api/lists', { name: `Deleted ${attempt}` })).body.id as string;
        await h.sql(
          `insert into lead (id, organization_id, list_id, email, source, created_at, updated_at)
           select gen_random_uuid(), ?, ?, 'p' || n || '@d' || d || '.deleted.test', 'import', now(), now()
           from generate_series(1, 60) d, generate_series(1, 100) n`,
          [organizationId, listId],
        );
        const answer = agent.post('/api/verification/jobs', { listId, verificationMethod: 'smtp_only' });
        await locker.query('begin');
        const job = await eventually(
          async () => (await locker.query('select domains_counted from verification_job where list_id = $1 for update', [listId])).rows[0],
          (row) => row !== undefined,
          { what: 'the job row, locked', intervalMs: 1 },
        );
        if (!job.domains_counted) {
          await locker.query('delete from lead_list where id = $1', [listId]);
          await locker.query('commit');
          const gone = expectError(await answer, 404, 'not_found');
          expect(gone.message).toMatch(/List/);
          expect(await h.sql('select count(*)::int as n from verification_job where list_id = ?', [listId])).toEqual([{ n: 0 }]);
          return;
        }
        await locker.query('rollback');
        expect((await answer).status).toBe(201);
        if (attempt === 5) throw new Error('the POST counted before the job row could be locked, five times');
      }
    } finally {
      await locker.end();
    }
  });
});

describe('smtp_only', () => {
  it('ends with the right result for every address, on every lead holding it, with agreeing counts and domain stats', async () => {
    const { agent, organizationId } = await h.signup();
    const list = standardList();
    const listId = await listWithEmails(agent, [...list.map((a) => a.email), 'broken@@address', 'no-at-sign']);
    // A second lead holds the first address in upper case: one address, two leads.
    await sameAddressAgain(organizationId, listId, list[0]!.email.toUpperCase());
    const created = await startJob(agent, listId, 'smtp_only');
    const job = await waitForJob(agent, created.id, inStage('completed'));

    const rows = await allResults(agent, job.id);
    expect(rows).toHaveLength(list.length + 2);
    for (const a of list) {
      const row = rows.find((r) => r.email === a.email);
      expect({ email: a.email, result: row?.result }).toEqual({ email: a.email, result: a.expected });
      // Decided by DNS alone (including a failed lookup), or by a mail server.
      expect(row.source).toBe(
        ['nullmx.test', 'nomail.test', 'nxdomain.test', 'servfail.test'].includes(a.domain)
          ? 'precheck'
          : 'smtp',
      );
      expect(row.domain).toBe(a.domain);
      expect(row.checkedAt).not.toBeNull();
      // The mail world's hosts belong to no big provider; without SMTP there is none.
      expect(row.mxProvider).toBe(row.source === 'smtp' ? 'other' : null);
    }
    // Malformed addresses: their domain is the text after the last '@', or none without one.
    expect(rows.find((r) => r.email === 'broken@@address')).toMatchObject({
      domain: 'address',
      result: 'Invalid',
      source: 'precheck',
      reason: expect.stringContaining('syntax'),
    });
    expect(rows.find((r) => r.email === 'no-at-sign')).toMatchObject({ domain: '', result: 'Invalid', source: 'precheck' });
    expect(rows.find((r) => r.email === knownAddress('good.test', 0))).toMatchObject({
      mxHost: 'mx1.good.test',
      reason: expect.stringMatching(/^250 /),
    });
    // A blocklist named in the reply is about our egress, not the mailbox (CONTRACT §13); the worker has no other.
    expect(rows.find((r) => r.email === unknownAddress('blocked.test', 0))?.reason).toMatch(/^egress_blocked: mx\.blocked\.test refused egress direct \(550 5\.7\.1 /);

    const count = (result: string) => rows.filter((r) => r.result === result).length;
    expectCountsAgree(job);
    expect(job).toMatchObject({
      totalEmails: list.length + 2,
      smtpValidCount: count('Valid'),
      smtpInvalidCount: count('Invalid'),
      smtpCatchAllCount: count('Catch-All'),
      smtpUnknownCount: count('Unknown'),
      apiVerifiedEmails: 0,
      apiCost: 0,
      userDecision: null,
    });
    expect(job.smtpCompletedAt).not.toBeNull();
    expect(job.completedAt).not.toBeNull();
    expect(job.coveragePercentage).toBe(
      Math.round(((count('Valid') + count('Invalid')) / (list.length + 2)) * 10_000) / 100,
    );

    const leads = await h.sql(`select email, email_status, email_verified_at from lead where list_id = ?`, [
      listId,
    ]);
    expect(leads).toHaveLength(list.length + 3);
    for (const lead of leads) {
      const row = rows.find((r) => r.email === lead.email.toLowerCase());
      expect({ email: lead.email, status: lead.email_status }).toEqual({
        email: lead.email,
        status: row.result,
      });
      expect(lead.email_verified_at).not.toBeNull();
    }
    // The stamps describe the committed end state: taken after the last lead was written, in the
    // same transaction (each lead's updated_at is its own write time).
    const [written] = await h.sql(`select max(updated_at) as last from lead where list_id = ?`, [listId]);
    expect(new Date(job.completedAt).getTime()).toBeGreaterThanOrEqual(new Date(written.last).getTime());
    expect(job.smtpCompletedAt).toBe(job.completedAt);

    const progress = (await agent.get(`/api/verification/jobs/${job.id}/progress`)).body;
    expect(progress.job).toEqual({
      id: job.id,
      verificationStage: 'completed',
      processedEmails: job.totalEmails,
      totalEmails: job.totalEmails,
      coveragePercentage: job.coveragePercentage,
    });
    for (const [domain, expected] of Object.entries(STANDARD_EXPECTATIONS)) {
      const stat = progress.domainStats.find((d: any) => d.domain === domain);
      const mine = rows.filter((r) => r.domain === domain);
      expect(stat).toEqual({
        domain,
        totalEmails: mine.length,
        validCount: mine.filter((r) => r.result === 'Valid').length,
        invalidCount: mine.filter((r) => r.result === 'Invalid').length,
        catchAllCount: mine.filter((r) => r.result === 'Catch-All').length,
        unknownCount: mine.filter((r) => r.result === 'Unknown').length,
        isCatchAll: expected.isCatchAll,
      });
    }

    const valid = await agent.get(`/api/verification/jobs/${job.id}/results?result=Valid&limit=5`);
    expect(valid.body).toMatchObject({
      total: count('Valid'),
      page: 1,
      limit: 5,
      totalPages: Math.ceil(count('Valid') / 5),
    });
    expect(valid.body.data.every((r: any) => r.result === 'Valid')).toBe(true);
    expectError(
      await agent.get(`/api/verification/jobs/${job.id}/results?result=Maybe`),
      400,
      'validation_error',
    );

    const csv = await agent.get(`/api/verification/jobs/${job.id}/results/download`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename="Prospects-verification\.csv"/);
    const lines = csv.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('email,result,source,reason,domain,mx_host,checked_at,mx_provider,smtp_code,enhanced_code,attempts,catch_all_score');
    expect(lines).toHaveLength(rows.length + 1);
    const catchAllRow = rows.find((r) => r.email === knownAddress('catchall.test', 0));
    const catchAllLine = lines.find((l) => l.startsWith(`${catchAllRow.email},`));
    expect(catchAllLine).toMatch(/^user0@catchall\.test,Catch-All,smtp,"?catch-all: /);
    // An accepting RCPT decided (the address's own, or the domain's random address's): its 250 is the evidence.
    expect(catchAllLine).toMatch(new RegExp(`,catchall\\.test,mx\\.catchall\\.test,${catchAllRow.checkedAt},other,250,,[12],\\d+$`));
    expect(catchAllRow).toMatchObject({ result: 'Catch-All', smtpCode: 250, enhancedCode: null });
    expect(catchAllRow.attempts).toBeGreaterThanOrEqual(1);

    // The evidence behind each verdict (CONTRACT §10): the deciding reply's codes and the attempts made.
    const byEmail = new Map(rows.map((r) => [r.email, r]));
    expect(byEmail.get(knownAddress('good.test', 0))).toMatchObject({ result: 'Valid', smtpCode: 250, attempts: 1, mxProvider: 'other' });
    expect(byEmail.get(unknownAddress('good.test', 0))).toMatchObject({ result: 'Invalid', smtpCode: 550, enhancedCode: '5.1.1', attempts: 1 });
    // Greylisted once: the second attempt decided.
    expect(byEmail.get(knownAddress('greylist.test', 0))).toMatchObject({ result: 'Valid', smtpCode: 250, attempts: 2 });
    expect(byEmail.get(knownAddress('blocked.test', 0))).toMatchObject({ result: 'Unknown', smtpCode: 550, enhancedCode: '5.7.1', attempts: 1 });
    // Decided by DNS alone: no SMTP, no evidence of it.
    expect(byEmail.get(knownAddress('nomail.test', 0))).toMatchObject({ result: 'Invalid', smtpCode: null, enhancedCode: null, attempts: 0, mxProvider: null });
    const invalidOnly = await agent.get(`/api/verification/jobs/${job.id}/results/download?result=Invalid`);
    expect(invalidOnly.text.trimEnd().split('\r\n')).toHaveLength(count('Invalid') + 1);

    const decision = expectError(await decide(agent, job.id, 'accept_current'), 409, 'invalid_state');
    expect(decision.details.currentState).toBe('completed');
    expect(world.totals().dataCommands).toBe(0);
  });

  it('ends the stage in the step after the last slice when nothing waits; a Catch-All result is assessed before the end', async () => {
    const { agent } = await h.signup();
    const plain = await startJob(agent, await listWithEmails(agent, [knownAddress('good.test', 0), unknownAddress('good.test', 0)]), 'smtp_only');
    expect(await waitForJob(agent, plain.id, inStage('completed'))).toMatchObject({ smtpValidCount: 1, smtpInvalidCount: 1 });
    // No ordinary activity between the slice and the completion event: the stage ended in one local step.
    // The stage is committed inside that step, before the workflow task that schedules the event ends.
    const steps = await eventually(
      () => scheduledActivities(h.temporal, `verification-${plain.id}`),
      (types) => types.includes('emitJobEvent'),
      { what: 'the completion event scheduled' },
    );
    expect(steps.slice(0, steps.indexOf('emitJobEvent') + 1)).toEqual(['probeDomainSlice', 'emitJobEvent']);

    const catchAll = knownAddress('catchall.test', 0);
    const mixed = await startJob(agent, await listWithEmails(agent, [knownAddress('good.test', 1), catchAll]), 'smtp_only');
    expect(await waitForJob(agent, mixed.id, inStage('completed'))).toMatchObject({ smtpValidCount: 1, smtpCatchAllCount: 1 });
    expect(await scheduledActivities(h.temporal, `verification-${mixed.id}`)).toContain('assessCatchAlls');
    const [row] = (await allResults(agent, mixed.id)).filter((r: any) => r.email === catchAll);
    expect(row).toMatchObject({ result: 'Catch-All', catchAllScore: expect.any(Number) });

    // A fallback job whose only gap is Unknown waits for the decision after the same one step, and takes it.
    const gap = knownAddress('blocked.test', 1);
    const fallback = await startJob(agent, await listWithEmails(agent, [knownAddress('good.test', 2), gap]), 'smtp_api_fallback');
    expect(await waitForJob(agent, fallback.id, inStage('awaiting_decision'))).toMatchObject({ smtpValidCount: 1, smtpUnknownCount: 1 });
    const waiting = await eventually(
      () => scheduledActivities(h.temporal, `verification-${fallback.id}`),
      (types) => types.includes('emitJobEvent'),
      { what: 'the awaiting_decision event scheduled' },
    );
    expect(waiting).toEqual(['probeDomainSlice', 'emitJobEvent']);
    expect((await decide(agent, fallback.id, 'accept_current')).status).toBe(200);
    expect(await waitForJob(agent, fallback.id, inStage('completed'))).toMatchObject({ userDecision: 'accept_current', apiVerifiedEmails: 0 });
  });

  it('has a list the planner has never seen analyzed beside the first slices: its addresses are decided while the analyze waits', async () => {
    const { agent } = await h.signup();
    const count = 2000;
    const believed = async (listId: string) => {
      const [row] = await h.sql(`explain (format json) select 1 from lead where list_id = ?`, [listId]);
      return row['QUERY PLAN'][0].Plan['Plan Rows'] as number;
    };
    // The lock every analyze of the table takes, held from before the list exists: no other analyze (another test's,
    // autovacuum's) teaches the planner the list first, and the job's own waits until it is released.
    const locker = new pg.Client({ connectionString: h.config.DATABASE_URL });
    await locker.connect();
    let jobId: string;
    let listId: string;
    try {
      await locker.query('begin');
      await locker.query('lock table lead in share update exclusive mode');
      // No mail host: decided by DNS alone, so the job is quick; its results are still written onto the leads.
      listId = await listWithEmails(agent, Array.from({ length: count }, (_, i) => `lead${i}@nomail.test`));
      expect(await believed(listId)).toBeLessThan(count / 10);
      jobId = (await startJob(agent, listId, 'smtp_only')).id;
      const decided = await waitForJob(agent, jobId, (job) => job.smtpInvalidCount === count);
      expect(decided.verificationStage).toBe('smtp_verifying');
      // (Another test's analyze may be waiting beside it.)
      const waiting = await locker.query(`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query ilike 'analyze lead%'`);
      expect(waiting.rows[0].n).toBeGreaterThanOrEqual(1);
    } finally {
      await locker.query('rollback');
      await locker.end();
    }
    expect(await waitForJob(agent, jobId, inStage('completed'))).toMatchObject({ smtpInvalidCount: count });
    expect(await believed(listId)).toBeGreaterThanOrEqual(count / 10);
    const { events } = await h.temporal.workflow.getHandle(`verification-${jobId}`).fetchHistory();
    const scheduled = (events ?? []).flatMap((e) => {
      const a = e.activityTaskScheduledEventAttributes;
      return a ? [{ type: a.activityType?.name, task: String(a.workflowTaskCompletedEventId) }] : [];
    });
    // One workflow task schedules the analyze and the first slice.
    expect(scheduled.find((a) => a.type === 'analyzeLeads')?.task).toBe(scheduled.find((a) => a.type === 'probeDomainSlice')?.task);
  });

  it('writes the last answers of a slice in a small batch: what the end of the stage waits for', async () => {
    const { agent } = await h.signup();
    const emails = [
      ...Array.from({ length: 100 }, (_, k) => knownAddress('good.test', k)),
      ...Array.from({ length: 200 }, (_, k) => unknownAddress('good.test', k)),
    ];
    const job = await startJob(agent, await listWithEmails(agent, emails), 'smtp_only');
    await waitForJob(agent, job.id, inStage('completed'));
    // Each write is a statement of its own: its rows share their stamp (the statement's transaction time).
    const writes = await h.sql(
      `select count(*)::int as n from verification_result where job_id = ? group by smtp_checked_at order by smtp_checked_at`,
      [job.id],
    );
    const sizes = writes.map((w: any) => w.n as number);
    expect(sizes.reduce((a: number, b: number) => a + b, 0)).toBe(emails.length);
    // The batches shrink with what is left of the slice: never over 250, and the last one at most 25.
    expect(Math.max(...sizes)).toBeLessThanOrEqual(250);
    expect(sizes.at(-1)).toBeLessThanOrEqual(25);
  });

  it('shows isCatchAll null while a domain is undetermined, then true or false', async () => {
    const { agent } = await h.signup();
    const listId = await listWithEmails(agent, [
      'user0@slowcatch.test',
      'nobody0@slowcatch.test',
      'user0@slowgood.test',
      'nobody0@slowgood.test',
    ]);
    const job = await startJob(agent, listId, 'smtp_only');
    const early = (await agent.get(`/api/verification/jobs/${job.id}/progress`)).body;
    expect(early.job).toMatchObject({
      verificationStage: 'smtp_verifying',
      processedEmails: 0,
      coveragePercentage: 0,
    });
    expect(early.domainStats.map((d: any) => [d.domain, d.isCatchAll, d.totalEmails])).toEqual([
      ['slowcatch.test', null, 2],
      ['slowgood.test', null, 2],
    ]);
    const estimate = (await agent.get(`/api/verification/jobs/${job.id}/estimate`)).body;
    expect(estimate).toMatchObject({
      totalGapCount: 0,
      currentCoveragePercentage: 0,
      projectedCoveragePercentage: 0,
    });

    await waitForJob(agent, job.id, inStage('completed'));
    const late = (await agent.get(`/api/verification/jobs/${job.id}/progress`)).body;
    expect(late.domainStats).toEqual([
      {
        domain: 'slowcatch.test',
        totalEmails: 2,
        validCount: 0,
        invalidCount: 0,
        catchAllCount: 2,
        unknownCount: 0,
        isCatchAll: true,
      },
      {
        domain: 'slowgood.test',
        totalEmails: 2,
        validCount: 1,
        invalidCount: 1,
        catchAllCount: 0,
        unknownCount: 0,
        isCatchAll: false,
      },
    ]);
  });
});

describe('api_only', () => {
  it('pre-checks for free, sends only the addresses that pass to the provider, and records the spend once each', async () => {
    const { agent, organizationId } = await h.signup();
    const list = standardList();
    provideVerdicts(list);
    for (const a of list) if (a.expected === 'Valid') zb.fixtures.verdicts.set(a.email, { status: 'valid' });
    const listId = await listWithEmails(agent, [...list.map((a) => a.email), 'broken@@address']);
    const rcptsBefore = world.totals().rcpts;
    const created = await startJob(agent, listId, 'api_only');
    expect(created.verificationStage).toBe('smtp_verifying');
    const job = await waitForJob(agent, created.id, inStage('completed'));

    const prechecked = list.filter((a) => ['nullmx.test', 'nomail.test', 'nxdomain.test'].includes(a.domain));
    const passed = list.filter((a) => !prechecked.includes(a));
    expect(world.totals().rcpts).toBe(rcptsBefore);
    expect(sentToProvider().sort()).toEqual(passed.map((a) => a.email).sort());

    const rows = await allResults(agent, job.id);
    for (const a of prechecked)
      expect(rows.find((r) => r.email === a.email)).toMatchObject({ result: 'Invalid', source: 'precheck' });
    for (const a of passed) {
      const fixture = zb.fixtures.verdicts.get(a.email);
      const expected = { valid: 'Valid', invalid: 'Invalid' }[fixture?.status as 'valid'] ?? 'Unknown';
      expect(rows.find((r) => r.email === a.email)).toMatchObject({
        result: expected,
        source: 'api',
        reason: fixture?.status ?? 'unknown',
      });
    }

    const spend = await spendRows(h, job.id);
    expect(spend.map((s) => s.email).sort()).toEqual(passed.map((a) => a.email).sort());
    expect(spend.every((s) => s.amount_micros === 500 && s.organization_id === organizationId)).toBe(true);
    expect(job).toMatchObject({
      totalEmails: list.length + 1,
      processedEmails: list.length + 1,
      smtpInvalidCount: prechecked.length + 1,
      smtpValidCount: 0,
      smtpUnknownCount: 0,
      smtpCatchAllCount: 0,
      apiVerifiedEmails: passed.length,
      apiCost: (passed.length * 500) / 1_000_000,
      apiValidCount: rows.filter((r) => r.source === 'api' && r.result === 'Valid').length,
      apiUnknownCount: rows.filter((r) => r.source === 'api' && r.result === 'Unknown').length,
    });
    const final = (result: string) => rows.filter((r) => r.result === result).length;
    expect(job.finalCounts).toEqual({
      valid: final('Valid'),
      invalid: final('Invalid'),
      catchAll: final('Catch-All'),
      unknown: final('Unknown'),
    });
  });
});

describe('smtp_api_fallback', () => {
  /** A job of the standard list, waiting for its decision. */
  async function awaitingJob() {
    const session = await h.signup();
    const list = standardList();
    provideVerdicts(list);
    const listId = await listWithEmails(
      session.agent,
      list.map((a) => a.email),
    );
    const created = await startJob(session.agent, listId, 'smtp_api_fallback');
    expect(created.verificationStage).toBe('smtp_verifying');
    const job = await waitForJob(session.agent, created.id, inStage('awaiting_decision'));
    return { ...session, list, listId, job };
  }

  it('waits with an estimate that agrees with the counts', async () => {
    const { agent, job, list } = await awaitingJob();
    const unknown = list.filter((a) => a.expected === 'Unknown').length;
    const catchAll = list.filter((a) => a.expected === 'Catch-All').length;
    expect(job).toMatchObject({
      smtpUnknownCount: unknown,
      smtpCatchAllCount: catchAll,
      userDecision: null,
      decisionMadeAt: null,
      completedAt: null,
    });
    expect(job.smtpCompletedAt).not.toBeNull();
    expectCountsAgree(job);
    const estimate = (await agent.get(`/api/verification/jobs/${job.id}/estimate`)).body;
    expect(estimate).toEqual({
      jobId: job.id,
      unknownCount: unknown,
      catchAllCount: catchAll,
      totalGapCount: unknown + catchAll,
      costPerEmail: 0.0005,
      fillUnknownsCost: (unknown * 500) / 1_000_000,
      fillCatchAllCost: (catchAll * 500) / 1_000_000,
      fillAllGapsCost: ((unknown + catchAll) * 500) / 1_000_000,
      currentCoveragePercentage: job.coveragePercentage,
      projectedCoveragePercentage: 100,
      // The two Catch-All results (user0@, nobody0@ catchall.test: no names, nothing known) at the starting score.
      catchAllByScore: Array.from({ length: 11 }, (_, score) => ({ score, count: score === 5 ? 2 : 0 })),
    });
    // 8 of 32 unknown (blocked, silent, refused, servfail), 2 catch-all: exact decimals, 22 of 32 covered.
    expect([estimate.fillUnknownsCost, estimate.fillCatchAllCost, estimate.fillAllGapsCost]).toEqual([
      0.004, 0.001, 0.005,
    ]);
    expect(job.coveragePercentage).toBe(68.75);
    const progress = (await agent.get(`/api/verification/jobs/${job.id}/progress`)).body;
    const sum = (key: string) => progress.domainStats.reduce((n: number, d: any) => n + d[key], 0);
    expect([sum('unknownCount'), sum('catchAllCount'), sum('totalEmails')]).toEqual([
      unknown,
      catchAll,
      job.totalEmails,
    ]);
    expect(sum('validCount') + sum('invalidCount')).toBe(job.smtpValidCount + job.smtpInvalidCount);
    expect(await decide(agent, job.id, 'accept_current')).toMatchObject({ status: 200 });
  });

  it('accept_current completes for free, and the GET right after shows it', async () => {
    const { agent, job } = await awaitingJob();
    const res = await decide(agent, job.id, 'accept_current');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: job.id,
      verificationStage: 'completed',
      userDecision: 'accept_current',
      decisionMadeAt: expect.any(String),
    });
    const after = (await agent.get(`/api/verification/jobs/${job.id}`)).body;
    expect(after).toMatchObject({
      verificationStage: 'completed',
      userDecision: 'accept_current',
      decisionMadeAt: res.body.decisionMadeAt,
      apiCost: 0,
    });
    expect(after.completedAt).not.toBeNull();
    expect(zb.requests).toHaveLength(0);
    expect(await spendRows(h, job.id)).toHaveLength(0);
    expectError(await decide(agent, job.id, 'fill_all_gaps'), 409, 'invalid_state');
  });

  for (const [decision, results] of [
    ['fill_unknowns_only', ['Unknown']],
    ['fill_catchall_only', ['Catch-All']],
    ['fill_all_gaps', ['Unknown', 'Catch-All']],
  ] as const) {
    it(`${decision} sends only ${results.join(' and ')} addresses to the provider, charged once each`, async () => {
      const { agent, job, list, listId, organizationId } = await awaitingJob();
      const chosen = list.filter((a) => (results as readonly string[]).includes(a.expected));
      // The provider holds the first batch until released, so the job is seen in api_verifying however long the
      // reads take (a 1.5 s delay was a window a loaded machine could miss).
      zb.setMode({ kind: 'held' }, 1);
      const res = await decide(agent, job.id, decision);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: job.id,
        verificationStage: 'api_verifying',
        userDecision: decision,
      });
      const right = (await agent.get(`/api/verification/jobs/${job.id}`)).body;
      expect(right).toMatchObject({
        verificationStage: 'api_verifying',
        userDecision: decision,
        decisionMadeAt: res.body.decisionMadeAt,
      });
      expect(right.processedEmails).toBeLessThan(right.totalEmails);
      zb.release();

      const done = await waitForJob(agent, job.id, inStage('completed'));
      expect(sentToProvider().sort()).toEqual(chosen.map((a) => a.email).sort());
      const spend = await spendRows(h, job.id);
      expect(spend.map((s) => s.email)).toEqual(chosen.map((a) => a.email).sort());
      expect(spend.every((s) => s.organization_id === organizationId)).toBe(true);

      const rows = await allResults(agent, job.id);
      const bought = rows.filter((r) => r.source === 'api');
      expect(bought.map((r) => r.email).sort()).toEqual(chosen.map((a) => a.email).sort());
      const final = (result: string) => rows.filter((r) => r.result === result).length;
      expect(done).toMatchObject({
        // SMTP counts stay what SMTP found.
        smtpUnknownCount: job.smtpUnknownCount,
        smtpCatchAllCount: job.smtpCatchAllCount,
        processedEmails: job.totalEmails,
        apiVerifiedEmails: chosen.length,
        apiCost: (chosen.length * 500) / 1_000_000,
        apiValidCount: bought.filter((r) => r.result === 'Valid').length,
        apiInvalidCount: bought.filter((r) => r.result === 'Invalid').length,
        apiUnknownCount: bought.filter((r) => r.result === 'Unknown').length,
        coveragePercentage:
          Math.round(((final('Valid') + final('Invalid')) / job.totalEmails) * 10_000) / 100,
      });
      expect(done.coveragePercentage).toBeGreaterThan(job.coveragePercentage);
      expect(done.finalCounts).toEqual({
        valid: final('Valid'),
        invalid: final('Invalid'),
        catchAll: final('Catch-All'),
        unknown: final('Unknown'),
      });
      const estimate = (await agent.get(`/api/verification/jobs/${job.id}/estimate`)).body;
      expect([estimate.unknownCount, estimate.catchAllCount]).toEqual([final('Unknown'), final('Catch-All')]);

      const leads = await h.sql(`select email, email_status from lead where list_id = ?`, [listId]);
      for (const lead of leads)
        expect(lead.email_status).toBe(rows.find((r) => r.email === lead.email).result);
    });
  }

  it('takes exactly one of two concurrent decisions; a decision before the SMTP stage ends is a 409', async () => {
    const early = await h.signup();
    const slowList = await listWithEmails(early.agent, [
      'user0@slowgood.test',
      'nobody0@slowgood.test',
      'user0@slowcatch.test',
    ]);
    const slow = await startJob(early.agent, slowList, 'smtp_api_fallback');
    const tooEarly = expectError(await decide(early.agent, slow.id, 'fill_all_gaps'), 409, 'invalid_state');
    expect(tooEarly.details.currentState).toBe('smtp_verifying');

    const { agent, job } = await awaitingJob();
    const answers = await Promise.all([
      decide(agent, job.id, 'accept_current'),
      decide(agent, job.id, 'fill_all_gaps'),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const winner = answers.find((a) => a.status === 200)!.body;
    const loser = expectError(
      answers.find((a) => a.status === 409)!,
      409,
      'invalid_state',
    );
    expect(['completed', 'api_verifying']).toContain(loser.details.currentState);
    const done = await waitForJob(agent, job.id, inStage('completed'));
    expect(done.userDecision).toBe(winner.userDecision);

    await waitForJob(early.agent, slow.id, inStage('awaiting_decision'));
    expect((await decide(early.agent, slow.id, 'accept_current')).status).toBe(200);
  });
});

describe('OpenAPI', () => {
  it('documents every verification route', async () => {
    const doc = (await (await h.signup()).agent.get('/openapi.json')).body;
    for (const path of [
      '',
      '/{jobId}',
      '/{jobId}/progress',
      '/{jobId}/estimate',
      '/{jobId}/decision',
      '/{jobId}/results',
      '/{jobId}/results/download',
    ]) {
      expect(doc.paths).toHaveProperty([`/api/verification/jobs${path}`]);
    }
    expect(Object.keys(doc.paths['/api/verification/jobs/{jobId}/decision'].post.responses)).toEqual(
      expect.arrayContaining(['200', '409']),
    );
  });
});

describe('GET /api/verification/jobs', () => {
  it('lists the organization’s jobs newest first, filtered by list and stage', async () => {
    const { agent } = await h.signup();
    const a = await listWithEmails(agent, ['user0@good.test'], 'A');
    const b = await listWithEmails(agent, ['user1@good.test'], 'B');
    const first = await startJob(agent, a, 'smtp_only');
    const second = await startJob(agent, b, 'smtp_only');
    await waitForJob(agent, first.id, inStage('completed'));
    await waitForJob(agent, second.id, inStage('completed'));

    const all = (await agent.get('/api/verification/jobs')).body;
    expect(all).toMatchObject({ total: 2, page: 1, limit: 20, totalPages: 1 });
    expect(all.data.map((j: any) => j.id)).toEqual([second.id, first.id]);
    expect(all.data[1]).toMatchObject({ listName: 'A', verificationStage: 'completed', smtpValidCount: 1 });
    expect((await agent.get(`/api/verification/jobs?listId=${a}`)).body.data.map((j: any) => j.id)).toEqual([
      first.id,
    ]);
    expect(
      (await agent.get('/api/verification/jobs?verificationStage=awaiting_decision')).body,
    ).toMatchObject({ total: 0, data: [], totalPages: 0 });
    expectError(await agent.get('/api/verification/jobs?verificationStage=done'), 400, 'validation_error');
    expectError(await agent.get('/api/verification/jobs?limit=101'), 400, 'validation_error');
    expect((await (await h.signup()).agent.get('/api/verification/jobs')).body.total).toBe(0);
  });
});
