/** `POST /api/external/verify`: one address, answered within its deadline whatever the mail host does. */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from 'hono';
import type { singleVerifyWorkflow } from '../../workflows/verify-single.ts';
import { type CheckRecord, NO_SMTP, recentResult } from './repository.ts';
import { domainOf, isValidEmailSyntax, normalizeEmail } from '../domain/email.ts';
import { jobSearchAttributes } from '../temporal/shared.ts';
import type { AppEnv } from '../http/env.ts';
import { organizationId } from '../http/middleware/session.ts';
import { toVerifyDto } from '../http/schemas/verify.ts';
import { requestEm } from '../http/middleware/request-context.ts';

/** Time for the worker to pick the check up and hand the answer back, on top of the probe's own deadline. */
const HANDOFF_MS = 700;
/** How long a finished check's workflow may linger before Temporal ends it. */
const WORKFLOW_SLACK_MS = 5_000;

export async function verifyAddress(c: Context<AppEnv>, input: { email: string; timeoutMs: number }) {
  // The caller's deadline counts from the request's arrival: the cache lookup and the workflow's start, slow on a
  // loaded machine, come out of it too.
  const deadline = Date.now() + input.timeoutMs;
  const orgId = organizationId(c);
  const email = normalizeEmail(input.email).toLowerCase();
  const now = () => new Date();
  if (!isValidEmailSyntax(email)) {
    const check: CheckRecord = { email, domain: domainOf(email), result: 'Invalid', reason: 'invalid address syntax', mxHost: null, isCatchAll: null, ...NO_SMTP, checkedAt: now() };
    return toVerifyDto(check, false);
  }
  const recent = await recentResult(requestEm(c), orgId, email, c.var.deps.config.VERIFY_RESULT_CACHE_TTL);
  if (recent) return toVerifyDto(recent, true);

  const { temporal, config } = c.var.deps;
  const probeMs = Math.max(500, deadline - Date.now() - HANDOFF_MS);
  const handle = await temporal.workflow.start<typeof singleVerifyWorkflow>('singleVerifyWorkflow', {
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowId: `verify-${randomUUID()}`,
    args: [{ organizationId: orgId, email, timeoutMs: probeMs }],
    typedSearchAttributes: jobSearchAttributes('verification', orgId),
    workflowExecutionTimeout: input.timeoutMs + WORKFLOW_SLACK_MS,
  });
  const result = handle.result();
  // Once the deadline has answered, a late failure of the check is nobody's to handle.
  result.catch(() => undefined);
  const abort = new AbortController();
  const late = sleep(Math.max(0, deadline - Date.now()), null, { signal: abort.signal }).catch(() => null);
  try {
    const answer = await Promise.race([result, late]);
    if (answer) return toVerifyDto(answer, false);
  } finally {
    abort.abort();
  }
  // No worker answered in time (all busy, or none running): honest, and the caller may ask again.
  const unknown: CheckRecord = {
    email,
    domain: domainOf(email),
    result: 'Unknown',
    reason: `no answer within ${input.timeoutMs} ms`,
    mxHost: null,
    isCatchAll: null,
    ...NO_SMTP,
    checkedAt: now(),
  };
  return toVerifyDto(unknown, false);
}
