import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { JOB_FAILED } from '../../src/errors.ts';
import { SEARCH_ATTRIBUTE_KEYS } from '../../src/temporal/search-attributes.ts';
import { decisionUpdate } from '../../src/verification/messages.ts';
import { startVerificationJob } from '../../src/verification/service.ts';
import { expectError } from '../support/agent.ts';
import { eventually } from '../support/eventually.ts';
import type { Harness } from '../support/harness.ts';
import { expectEndedOnJobGone } from '../support/job-gone.ts';
import { standardAddressList, standardWorld } from '../support/mail-world/index.ts';
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

let zb: ZeroBounceServer;
let h: Harness;
let stop: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ zb, h, stop } = await startVerificationWorld(standardWorld(), { VERIFICATION_DECISION_TIMEOUT: '3s' }));
});
afterAll(() => stop?.());
beforeEach(() => zb.reset());

/** A smtp_api_fallback job of a new organization, over the standard list of 32, once it awaits the decision. */
async function awaitingDecision() {
  const { agent } = await h.signup();
  const listId = await listWithEmails(agent, standardAddressList(32).map((a) => a.email));
  const created = await startJob(agent, listId, 'smtp_api_fallback');
  const waiting = await waitForJob(agent, created.id, inStage('awaiting_decision'));
  return { agent, listId, created, waiting };
}

describe('verification workflow', () => {
  it('runs as verification-<jobId> with OrganizationId, JobKind and ListId search attributes', async () => {
    const { agent, organizationId } = await h.signup();
    const listId = await listWithEmails(agent, ['user0@good.test']);
    const job = await startJob(agent, listId, 'smtp_only');
    await waitForJob(agent, job.id, inStage('completed'));
    const handle = h.temporal.workflow.getHandle(`verification-${job.id}`);
    await handle.result();
    const description = await handle.describe();
    expect(description.type).toBe('verificationWorkflow');
    expect(description.status.name).toBe('COMPLETED');
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTE_KEYS.OrganizationId)).toBe(organizationId);
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTE_KEYS.JobKind)).toBe('verification');
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTE_KEYS.ListId)).toBe(listId);
  });

  it('treats no decision within VERIFICATION_DECISION_TIMEOUT as accept_current', async () => {
    const { agent, created, waiting } = await awaitingDecision();
    expect(waiting.userDecision).toBeNull();
    const done = await waitForJob(agent, created.id, inStage('completed'));
    expect(done).toMatchObject({
      userDecision: 'accept_current',
      apiVerifiedEmails: 0,
      apiCost: 0,
      smtpUnknownCount: waiting.smtpUnknownCount,
      coveragePercentage: waiting.coveragePercentage,
    });
    expect(Date.parse(done.decisionMadeAt)).toBeGreaterThanOrEqual(Date.parse(waiting.smtpCompletedAt));
    expect(done.completedAt).not.toBeNull();
    expect(zb.requests).toHaveLength(0);
    expect(await spendRows(h, created.id)).toHaveLength(0);
    const late = expectError(
      await agent.post(`/api/verification/jobs/${created.id}/decision`, { decision: 'fill_all_gaps' }),
      409,
      'invalid_state',
    );
    expect(late.details.currentState).toBe('completed');
  });

  it('ends quietly when the request creating its job dies after starting it, before the job is committed', async () => {
    const { agent, organizationId } = await h.signup();
    const listId = await listWithEmails(agent, ['user0@good.test', 'user1@good.test']);
    // The creating transaction's connection is cut right after the workflow started (found by the advisory lock it
    // holds for the job): what a crash of the request between the start and the commit leaves behind.
    let jobId = '';
    const workflow = new Proxy(h.temporal.workflow, {
      get(target, prop, receiver) {
        if (prop !== 'start') return Reflect.get(target, prop, receiver);
        return async (...args: Parameters<typeof target.start>) => {
          const handle = await target.start(...args);
          jobId = handle.workflowId.replace(/^verification-/, '');
          await h.sql(
            `select pg_terminate_backend(l.pid) from pg_locks l, hashtextextended('verification-create:' || ?, 0) k
              where l.locktype = 'advisory' and l.classid::bigint = (k >> 32) & 4294967295 and l.objid::bigint = k & 4294967295`,
            [jobId],
          );
          return handle;
        };
      },
    });
    const temporal = new Proxy(h.temporal, { get: (target, prop, receiver) => (prop === 'workflow' ? workflow : Reflect.get(target, prop, receiver)) });
    const ctx = { em: h.orm.em.fork(), organizationId, temporal, config: h.config };
    await expect(startVerificationJob(ctx, { listId, verificationMethod: 'smtp_only' })).rejects.toThrow();
    expect(jobId).not.toBe('');
    // Its plan step found no job once the transaction was gone, and the workflow ended without a trace.
    await expectEndedOnJobGone(h, `verification-${jobId}`);
    expect(await h.sql(`select count(*)::int as n from verification_job where list_id = ?`, [listId])).toEqual([{ n: 0 }]);
    // The list is free for the next job, which runs to the end.
    const next = await startJob(agent, listId, 'smtp_only');
    expect((await waitForJob(agent, next.id, inStage('completed'))).totalEmails).toBe(2);
  });

  it('ends quietly when its list (and so the job) is deleted while it waits for a decision', async () => {
    const { agent, listId, created } = await awaitingDecision();
    expect((await agent.delete(`/api/lists/${listId}`)).status).toBe(204);
    // The decision timeout's accept_current finds no job.
    await expectEndedOnJobGone(h, `verification-${created.id}`);
    expectError(await agent.get(`/api/verification/jobs/${created.id}`), 404, 'not_found');
    expect(zb.requests).toHaveLength(0);
  });

  it('ends quietly when the job is gone as its decision is stored (the update fails, the workflow does not wait on)', async () => {
    const { created } = await awaitingDecision();
    // Deleted between the route's check and the update (here: the update sent straight to the workflow).
    await h.sql('delete from verification_job where id = ?', [created.id]);
    const handle = h.temporal.workflow.getHandle(`verification-${created.id}`);
    await expect(handle.executeUpdate(decisionUpdate, { args: [{ decision: 'fill_all_gaps' }] })).rejects.toThrow(WorkflowUpdateFailedError);
    await expectEndedOnJobGone(h, `verification-${created.id}`);
    expect(zb.requests).toHaveLength(0);
  });

  for (const [what, emails] of [
    ['validate (one address)', ['user0@good.test']],
    ['validatebatch', ['user0@good.test', 'user1@good.test', 'nobody0@good.test', 'user0@nomail.test']],
  ] as const) {
    it(`fails the job with the provider's reason when ZeroBounce refuses the key on ${what}, without retrying or charging`, async () => {
      const { agent } = await h.signup();
      const listId = await listWithEmails(agent, [...emails]);
      zb.setMode({ kind: 'bad-key' });
      const created = await startJob(agent, listId, 'api_only');
      const failed = await waitForJob(agent, created.id, inStage('failed', 'completed'));
      expect(failed.verificationStage).toBe('failed');
      expect(failed.failureReason).toMatch(/zerobounce rejected the API key: Invalid API key/i);
      expect(failed.failureReason).not.toContain(zb.apiKey);
      expect(failed).toMatchObject({ apiVerifiedEmails: 0, apiCost: 0, completedAt: null });
      // HTTP 200 with an error body, asked once: a bad key is not retried.
      expect(zb.requests).toHaveLength(1);
      expect(await spendRows(h, created.id)).toHaveLength(0);
      const rows = await allResults(agent, created.id);
      // What the free pre-check found stands; what waited for the provider has no result.
      for (const row of rows) expect(row.result).toBe(row.email.endsWith('@nomail.test') ? 'Invalid' : null);
      // The job records its failure just before the workflow ends as failed (visible to operators).
      const handle = h.temporal.workflow.getHandle(`verification-${created.id}`);
      // One failure type for every job kind (workflows/job-lifecycle.ts), with the reason users read.
      const failure = await handle.result().then(() => null, (error: unknown) => error);
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      expect((failure as WorkflowFailedError).cause).toMatchObject({ type: JOB_FAILED, message: failed.failureReason });
      expect((await handle.describe()).status.name).toBe('FAILED');

      // A failed job does not hold the list: it can be verified again once the key works.
      zb.setMode({ kind: 'normal' });
      const again = await startJob(agent, listId, 'api_only');
      await waitForJob(agent, again.id, inStage('completed'));
      expect(await spendRows(h, again.id)).toHaveLength(
        emails.filter((e) => e.endsWith('@good.test')).length,
      );
    });
  }
});

describe('verification workflow: cancelled by an operator', () => {
  it('ends failed with its reason and its verification.failed event while it awaits the decision', async () => {
    const { agent, created } = await awaitingDecision();
    const handle = h.temporal.workflow.getHandle(`verification-${created.id}`);
    await handle.cancel();
    const failed = await waitForJob(agent, created.id, inStage('failed', 'completed'));
    expect(failed).toMatchObject({ verificationStage: 'failed', failureReason: 'cancelled by an operator' });
    await expect(handle.result()).rejects.toThrow();
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    // The event follows the failure in the workflow's tail, even though the workflow was being cancelled.
    const events = await eventually(() => h.sql('select type from webhook_event where job_id = ? order by id', [created.id]), (rows) => rows.length === 2, {
      what: `both events of verification job ${created.id}`,
    });
    expect(events.map((e) => e.type)).toEqual(['verification.awaiting_decision', 'verification.failed']);
    // A cancelled job does not hold the list either.
    await startJob(agent, failed.listId, 'smtp_only');
  });
});
