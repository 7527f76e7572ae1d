import { allHandlersFinished, condition, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { FinderActivities } from '../activities/finder.ts';
import { mergeTried } from '../src/domain/finder.ts';
import { type FindAnswer, type FindInput, firstAnswerUpdate } from '../src/finder/messages.ts';

// One SMTP session of a few RCPTs; a failed pass (a worker lost, the database away) is tried again a few times.
const { findEmailStep } = proxyActivities<FinderActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 4 },
});

// Bookkeeping in our own database: retried until it works (settling is idempotent).
const { settleEmailFind } = proxyActivities<FinderActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds' },
});

/**
 * One find (CONTRACT §14): a first pass; candidates a greylisting host deferred are asked again after each wait of
 * the schedule (durable timers: no worker and no request is held meanwhile) until one pass decides; then the
 * answer is settled (charged once, recorded). The route waits for the first pass through `firstAnswerUpdate`.
 */
export async function findEmailWorkflow(input: FindInput): Promise<FindAnswer> {
  let first: FindAnswer | null | undefined;
  setHandler(firstAnswerUpdate, async () => {
    await condition(() => first !== undefined);
    return first ?? null;
  });
  let step = await findEmailStep(input);
  let tried = step.tried;
  for (const waitMs of input.schedule) {
    if (step.kind !== 'deferred') break;
    first = null;
    await sleep(waitMs);
    step = await findEmailStep({ ...input, retry: step.retry });
    tried = mergeTried(tried, step.tried);
  }
  const answer = await settleEmailFind({ ...input, step: { ...step, tried } });
  first ??= answer;
  await condition(allHandlersFinished);
  return answer;
}
