/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies are asserted field by field */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, expectError } from '../support/agent.ts';
import { createKey } from '../support/auth-cases.ts';
import type { Harness } from '../support/harness.ts';
import { allResults, listWithEmails, startJob, startVerificationWorld, waitForJob } from '../support/verification.ts';

/**
 * CONTRACT §15 (README, The sales pipeline): `nextRetryAt` and `POST …/finish-deferred`. grey.test greylists every
 * triplet for an hour and the schedule waits 10 minutes, so a job that ends within this test's timeout ended because
 * it was told to, not because the schedule ran out.
 */
const SCHEDULE_MS = 10 * 60_000;

let h: Harness;
let stop: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ h, stop } = await startVerificationWorld(
    {
      domains: {
        'grey.test': {
          mx: [{ host: 'mx.grey.test', preference: 10, ip: '127.0.0.91', behaviour: { mailboxes: ['ann@grey.test'], greylistForMs: 3_600_000 } }],
        },
        'plain.test': {
          mx: [{ host: 'mx.plain.test', preference: 10, ip: '127.0.0.92', behaviour: { mailboxes: ['ok@plain.test'] } }],
        },
        // Slow (each reply 600 ms, under SMTP_PROBE_TIMEOUT_MS): its job is still in its first pass, nothing deferred, when asked.
        'slow.test': {
          mx: [{ host: 'mx.slow.test', preference: 10, ip: '127.0.0.93', behaviour: { mailboxes: ['ok@slow.test'], latencyMs: 600 } }],
        },
      },
    },
    { SMTP_GREYLIST_SCHEDULE: '10m,10m' },
  ));
});
afterAll(() => stop?.());

/** Waits until the job's addresses on grey.test are deferred and the wait before their next attempt is shown. */
async function deferredJob(agent: Agent, jobId: string, deferred: number) {
  const job = await waitForJob(agent, jobId, (j) => j.deferredCount === deferred && j.nextRetryAt !== null, 60_000);
  expect(job.verificationStage).toBe('smtp_verifying');
  const due = Date.parse(job.nextRetryAt) - Date.now();
  // Due one schedule step after the first pass ended: in the future, no later than the step.
  expect(due).toBeGreaterThan(SCHEDULE_MS - 60_000);
  expect(due).toBeLessThanOrEqual(SCHEDULE_MS);
  return job;
}

describe('finishing the deferred addresses now', () => {
  it('shows when the next attempt is due, then ends the SMTP stage with them Unknown on request', { timeout: 120_000 }, async () => {
    const { agent } = await h.signup();
    const listId = await listWithEmails(agent, ['ann@grey.test', 'bob@grey.test', 'ok@plain.test']);
    const created = await startJob(agent, listId, 'smtp_only');
    expect(created.nextRetryAt).toBeNull();

    const waiting = await deferredJob(agent, created.id, 2);
    expect(waiting).toMatchObject({ processedEmails: 1, smtpValidCount: 1 });
    // The list and the live stream show the same job.
    const listed = (await agent.get(`/api/verification/jobs?listId=${listId}`)).body.data;
    expect(listed.map((j: any) => j.nextRetryAt)).toEqual([waiting.nextRetryAt]);

    const started = Date.now();
    const res = await agent.post(`/api/verification/jobs/${created.id}/finish-deferred`);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ id: created.id });
    const done = await waitForJob(agent, created.id, (j) => j.verificationStage === 'completed', 30_000);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(done).toMatchObject({
      deferredCount: 0,
      nextRetryAt: null,
      processedEmails: 3,
      smtpValidCount: 1,
      smtpUnknownCount: 2,
      finalCounts: { valid: 1, invalid: 0, catchAll: 0, unknown: 2 },
    });
    const rows = await allResults(agent, created.id);
    const byEmail = Object.fromEntries(rows.map((r) => [r.email, r]));
    expect(byEmail['ok@plain.test'].result).toBe('Valid');
    for (const email of ['ann@grey.test', 'bob@grey.test']) {
      // The in-session attempts only: no later attempt was made.
      expect(byEmail[email]).toMatchObject({ result: 'Unknown', source: 'smtp', smtpCode: 451, attempts: 3 });
      expect(byEmail[email].reason).toMatch(/^greylisted: deferred 3 times over \d+ s \(451 4\.7\.1 /);
    }
    // The leads carry the verdicts too.
    const leads = await h.sql(`select email, email_status from lead where list_id = ? order by email`, [listId]);
    expect(leads.map((l) => l.email_status)).toEqual(['Unknown', 'Unknown', 'Valid']);

    const again = expectError(await agent.post(`/api/verification/jobs/${created.id}/finish-deferred`), 409, 'invalid_state');
    expect(again.details).toMatchObject({ currentState: 'completed' });
  });

  it('moves a hybrid job to its decision, through an API key with verification:write', { timeout: 120_000 }, async () => {
    const { agent } = await h.signup();
    const listId = await listWithEmails(agent, ['cat@grey.test', 'ok@plain.test']);
    const created = await startJob(agent, listId, 'smtp_api_fallback');
    await deferredJob(agent, created.id, 1);

    const path = `/api/external/verification/jobs/${created.id}/finish-deferred`;
    const external = new Agent(h.app);
    const reader = await createKey(agent, ['verification:read']);
    expectError(await external.send('POST', path, { headers: { 'x-api-key': reader.key } }), 403, 'forbidden');
    const writer = await createKey(agent, ['verification:write']);
    const res = await external.send('POST', path, { headers: { 'x-api-key': writer.key } });
    expect(res.status).toBe(202);

    const decided = await waitForJob(agent, created.id, (j) => j.verificationStage === 'awaiting_decision', 30_000);
    expect(decided).toMatchObject({ deferredCount: 0, nextRetryAt: null, smtpUnknownCount: 1, smtpValidCount: 1 });
    const again = expectError(await external.send('POST', path, { headers: { 'x-api-key': writer.key } }), 409, 'invalid_state');
    expect(again.details).toMatchObject({ currentState: 'awaiting_decision' });
    expect(again.message).toMatch(/only while the job checks mail servers/);
  });

  it('refuses a job with nothing deferred, and another organization’s job', { timeout: 60_000 }, async () => {
    const { agent } = await h.signup();
    const listId = await listWithEmails(agent, ['ok@slow.test']);
    const created = await startJob(agent, listId, 'smtp_only');
    const refused = expectError(await agent.post(`/api/verification/jobs/${created.id}/finish-deferred`), 409, 'invalid_state');
    expect(refused).toMatchObject({ details: { currentState: 'smtp_verifying' } });
    expect(refused.message).toMatch(/No address of this job is waiting/);
    // Refusing it changed nothing: the job ends as it would have.
    const done = await waitForJob(agent, created.id, (j) => j.verificationStage === 'completed', 45_000);
    expect(done).toMatchObject({ smtpValidCount: 1, deferredCount: 0, nextRetryAt: null });

    const other = await h.signup();
    expectError(await other.agent.post(`/api/verification/jobs/${created.id}/finish-deferred`), 404, 'not_found');
  });
});
