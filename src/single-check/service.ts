/** The single-address check's application service (`POST /api/external/verify`): answered within its deadline whatever the mail host does. */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { domainOf, isValidEmailSyntax, normalizeEmail } from '../domain/email.ts';
import type { JobContext } from '../jobs/context.ts';
import { startWorkflow } from '../jobs/start.ts';
import { type CheckRecord, NO_SMTP, recentResult } from './repository.ts';
import { singleCheckWorkflowType } from './messages.ts';

/** Time for the worker to pick the check up and hand the answer back, on top of the probe's own deadline. */
const HANDOFF_MS = 700;
/** How long a finished check's workflow may linger before Temporal ends it. */
const WORKFLOW_SLACK_MS = 5_000;

/** The check of one address, and whether it came from a recent check of the same address. */
export async function verifyAddress(ctx: JobContext, input: { email: string; timeoutMs: number }): Promise<{ check: CheckRecord; cached: boolean }> {
  // The caller's deadline counts from the request's arrival: the cache lookup and the workflow's start, slow on a
  // loaded machine, come out of it too.
  const deadline = Date.now() + input.timeoutMs;
  const { organizationId } = ctx;
  const email = normalizeEmail(input.email).toLowerCase();
  const unanswered = (result: CheckRecord['result'], reason: string): CheckRecord =>
    ({ email, domain: domainOf(email), result, reason, mxHost: null, isCatchAll: null, ...NO_SMTP, checkedAt: new Date() });
  if (!isValidEmailSyntax(email)) return { check: unanswered('Invalid', 'invalid address syntax'), cached: false };
  const recent = await recentResult(ctx.em, organizationId, email, ctx.config.VERIFY_RESULT_CACHE_TTL);
  if (recent) return { check: recent, cached: true };

  const probeMs = Math.max(500, deadline - Date.now() - HANDOFF_MS);
  const checkId = randomUUID();
  const handle = await startWorkflow(ctx, {
    kind: 'verification',
    id: checkId,
    organizationId,
    workflow: singleCheckWorkflowType,
    args: [{ organizationId, email, timeoutMs: probeMs }],
    executionTimeout: input.timeoutMs + WORKFLOW_SLACK_MS,
  });
  const result = handle.result();
  // Once the deadline has answered, a late failure of the check is nobody's to handle.
  result.catch(() => undefined);
  const abort = new AbortController();
  const late = sleep(Math.max(0, deadline - Date.now()), null, { signal: abort.signal }).catch(() => null);
  try {
    const answer = await Promise.race([result, late]);
    if (answer) return { check: answer, cached: false };
  } finally {
    abort.abort();
  }
  // No worker answered in time (all busy, or none running): honest, and the caller may ask again.
  return { check: unanswered('Unknown', `no answer within ${input.timeoutMs} ms`), cached: false };
}
