/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies are asserted field by field */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Agent, expectError } from '../support/agent.ts';
import type { Harness } from '../support/harness.ts';
import { knownAddress, standardWorld, unknownAddress } from '../support/mail-world/index.ts';
import type { ZeroBounceServer } from '../../src/sandbox/providers/zerobounce.ts';
import { allResults, inStage, listWithEmails, spendRows, startJob, startVerificationWorld, waitForJob } from '../support/verification.ts';

let zb: ZeroBounceServer;
let h: Harness;
let stop: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ zb, h, stop } = await startVerificationWorld(standardWorld()));
});
afterAll(() => stop?.());
beforeEach(() => zb.reset());

// Twelve Catch-All addresses, two Unknown (a host refusing every connection), two Valid.
const CATCH_ALL = [0, 1, 2, 3, 4, 5].flatMap((k) => [knownAddress('catchall.test', k), unknownAddress('catchall.test', k)]).sort();
const UNKNOWN = [knownAddress('blocked.test', 0), unknownAddress('blocked.test', 0)];
const VALID = [knownAddress('good.test', 0), knownAddress('good.test', 1)];

/** Addresses the stand-in was asked about, through either endpoint. */
function sentToProvider(): string[] {
  return zb.requests.flatMap((r) =>
    r.path === '/v2/validatebatch'
      ? (r.body as { email_batch: Array<{ email_address: string }> }).email_batch.map((e) => e.email_address)
      : [r.query.email ?? ''],
  );
}

/**
 * A job waiting for the decision whose Catch-All results carry scores 0, 1, …, 10 in address order and the
 * twelfth none (set in the database over what the assessment step gave them).
 */
async function scoredJob() {
  const session = await h.signup();
  for (const email of [...CATCH_ALL, ...UNKNOWN]) zb.fixtures.verdicts.set(email, { status: 'valid' });
  const listId = await listWithEmails(session.agent, [...CATCH_ALL, ...UNKNOWN, ...VALID]);
  const created = await startJob(session.agent, listId, 'smtp_api_fallback');
  const job = await waitForJob(session.agent, created.id, inStage('awaiting_decision'));
  expect(job).toMatchObject({ smtpCatchAllCount: CATCH_ALL.length, smtpUnknownCount: UNKNOWN.length });
  const scores = new Map(CATCH_ALL.slice(0, 11).map((email, score) => [email, score]));
  await h.sql(
    `update verification_result r set catch_all_score = v.score
     from jsonb_to_recordset(?::jsonb) as v(email text, score int) where r.job_id = ? and r.email = v.email`,
    // The twelfth as one the assessment has not reached yet.
    [JSON.stringify([...[...scores].map(([email, score]) => ({ email, score })), { email: CATCH_ALL[11], score: null }]), job.id],
  );
  return { ...session, job, scores };
}

describe('paying only for the doubtful Catch-All results', () => {
  it('estimates by score, sends and charges only the Catch-All results scored at or below the bound, and shows the bound', async () => {
    const { agent, job, scores, organizationId } = await scoredJob();
    const estimate = (await agent.get(`/api/verification/jobs/${job.id}/estimate`)).body;
    // Eleven bands of one; the unscored twelfth in none.
    expect(estimate.catchAllByScore).toEqual(Array.from({ length: 11 }, (_, score) => ({ score, count: 1 })));
    expect(estimate.catchAllCount).toBe(CATCH_ALL.length);

    const res = await agent.post(`/api/verification/jobs/${job.id}/decision`, { decision: 'fill_catchall_only', catchAllMaxScore: 4 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ verificationStage: 'api_verifying', userDecision: 'fill_catchall_only' });
    const done = await waitForJob(agent, job.id, inStage('completed'));

    const chosen = [...scores].filter(([, score]) => score <= 4).map(([email]) => email).sort();
    expect(chosen).toHaveLength(5);
    expect(sentToProvider().sort()).toEqual(chosen);
    const spend = await spendRows(h, job.id);
    expect(spend.map((s) => s.email)).toEqual(chosen);
    expect(spend.every((s) => s.amount_micros === 500 && s.organization_id === organizationId)).toBe(true);
    expect(done).toMatchObject({ catchAllMaxScore: 4, userDecision: 'fill_catchall_only', apiVerifiedEmails: 5, apiCost: (5 * 500) / 1_000_000 });

    const rows = await allResults(agent, job.id);
    const resultOf = new Map(rows.map((r) => [r.email, r]));
    for (const email of CATCH_ALL) {
      const row = resultOf.get(email);
      if (chosen.includes(email)) expect(row).toMatchObject({ result: 'Valid', source: 'api' });
      else expect(row).toMatchObject({ result: 'Catch-All', source: 'smtp' });
    }
    for (const email of UNKNOWN) expect(resultOf.get(email)).toMatchObject({ result: 'Unknown' });
    // The estimate afterwards counts what is still Catch-All.
    const after = (await agent.get(`/api/verification/jobs/${job.id}/estimate`)).body;
    expect(after.catchAllByScore.map((b: any) => b.count)).toEqual([0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]);
  });

  it('fill_all_gaps with a bound sends every Unknown and the Catch-All results at or below it (an API key may decide too)', async () => {
    const { agent, job, scores } = await scoredJob();
    const key = (await agent.post('/api/api-keys', { name: 'Integration', scopes: ['verification:write', 'verification:read'] })).body.key;
    const res = await new Agent(h.app).post(`/api/external/verification/jobs/${job.id}/decision`, { decision: 'fill_all_gaps', catchAllMaxScore: 0 }, { 'x-api-key': key });
    expect(res.status).toBe(200);
    const done = await waitForJob(agent, job.id, inStage('completed'));
    const chosen = [...[...scores].filter(([, score]) => score === 0).map(([email]) => email), ...UNKNOWN].sort();
    expect(sentToProvider().sort()).toEqual(chosen);
    expect((await spendRows(h, job.id)).map((s) => s.email)).toEqual(chosen);
    expect(done).toMatchObject({ catchAllMaxScore: 0, apiCost: (chosen.length * 500) / 1_000_000 });
  });

  it('without a bound sends every Catch-All result, scored or not, as before', async () => {
    const { agent, job } = await scoredJob();
    expect((await agent.post(`/api/verification/jobs/${job.id}/decision`, { decision: 'fill_catchall_only' })).status).toBe(200);
    const done = await waitForJob(agent, job.id, inStage('completed'));
    expect(sentToProvider().sort()).toEqual(CATCH_ALL);
    expect((await spendRows(h, job.id)).map((s) => s.email)).toEqual(CATCH_ALL);
    expect(done).toMatchObject({ catchAllMaxScore: null, apiCost: (CATCH_ALL.length * 500) / 1_000_000 });
  });

  it('refuses a bound with a decision that sends no Catch-All result, or out of 0–10, before anything is decided', async () => {
    const { agent, job } = await scoredJob();
    for (const body of [
      { decision: 'accept_current', catchAllMaxScore: 3 },
      { decision: 'fill_unknowns_only', catchAllMaxScore: 3 },
      { decision: 'fill_catchall_only', catchAllMaxScore: 11 },
      { decision: 'fill_catchall_only', catchAllMaxScore: -1 },
      { decision: 'fill_catchall_only', catchAllMaxScore: 2.5 },
      { decision: 'fill_catchall_only', catchAllMaxScore: '3' },
    ]) {
      const error = expectError(await agent.post(`/api/verification/jobs/${job.id}/decision`, body), 400, 'validation_error');
      expect(error.details[0].path).toBe('json.catchAllMaxScore');
    }
    expect((await agent.get(`/api/verification/jobs/${job.id}`)).body).toMatchObject({ verificationStage: 'awaiting_decision', userDecision: null, catchAllMaxScore: null });
    expect(zb.requests).toHaveLength(0);
  });
});
