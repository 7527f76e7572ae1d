/** The email finder's application service: what `/api/enrichment/find-email` and `/api/external/find-email` do. */
import { setTimeout as sleep } from 'node:timers/promises';
import { newId } from '../db/entities/common.ts';
import { creditBalance } from '../accounts/credits.ts';
import { CREDIT_PRICES } from '../domain/enrichment.ts';
import type { FindAnswer } from '../domain/find-answer.ts';
import { ApiError, notFound } from '../errors.ts';
import type { JobContext } from '../jobs/context.ts';
import { startWorkflow } from '../jobs/start.ts';
import { log } from '../log.ts';
import { firstAnswerUpdate, findEmailWorkflowType } from './messages.ts';
import { createFind, deleteFind, findAnswerOf } from './repository.ts';

/**
 * How long a request waits for the find's first pass: one SMTP session of a few RCPTs normally answers in a second
 * or two. A pass that must wait out greylisting answers at once (202); only a worker too busy to start it makes a
 * request wait this long.
 */
const FIRST_ANSWER_WAIT_MS = 20_000;

export type FindResponse = { status: 200; answer: FindAnswer } | { status: 202; findId: string };

/** Starts a find and answers with its result when its first pass decided it, else with where to read it later. */
export async function findEmailAddress(ctx: JobContext, input: { firstName: string; lastName: string; domain: string }): Promise<FindResponse> {
  const { em, organizationId } = ctx;
  // A Valid find must be payable: the same refusal as enrichment when nothing could be paid.
  const balance = await creditBalance(em, organizationId);
  if (balance < CREDIT_PRICES.workEmail) {
    throw new ApiError('insufficient_credits', 'The credit balance cannot pay for a found address: add credits to find emails', { balance });
  }
  const findId = newId();
  await createFind(em, { id: findId, organizationId, ...input });
  const handle = await startWorkflow(
    ctx,
    {
      kind: 'enrichment',
      id: findId,
      organizationId,
      workflow: findEmailWorkflowType,
      args: [{ findId, organizationId, ...input, schedule: ctx.config.SMTP_GREYLIST_SCHEDULE }],
    },
    () => deleteFind(em.fork(), findId),
  );
  // A find whose first pass settled before the update reached it has ended: its result is the answer.
  const first = handle
    .executeUpdate(firstAnswerUpdate)
    .catch(() => handle.result())
    .catch((error: unknown) => {
      log.warn('email find failed', { findId, error: error instanceof Error ? error.message : String(error) });
      throw new ApiError('unavailable', 'The email finder could not complete this find; retry later');
    });
  const abort = new AbortController();
  const late = sleep(FIRST_ANSWER_WAIT_MS, null, { signal: abort.signal }).catch(() => null);
  try {
    const answer = await Promise.race([first, late]);
    return answer ? { status: 200, answer } : { status: 202, findId };
  } finally {
    abort.abort();
  }
}

/** The find's answer once known; null while its workflow still works on it. */
export async function findEmailResult(ctx: JobContext, findId: string): Promise<FindAnswer | null> {
  const answer = await findAnswerOf(ctx.em, ctx.organizationId, findId);
  if (answer === undefined) throw notFound('Find');
  return answer;
}
