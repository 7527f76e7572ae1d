import { ActivityFailure, CancellationScope, isCancellation } from '@temporalio/workflow';

/** What a job shows when an operator cancelled its workflow (Temporal UI, `temporal workflow cancel`). */
export const CANCELLED_REASON = 'cancelled by an operator';

/**
 * The reason a job failed, or null when `error` is not a job's failure (a bug in the workflow itself, which
 * Temporal retries as a workflow task). Activities fail a job once their retries are spent; an operator's
 * cancel fails it too, which is why `recordJobFailure` runs outside the cancelled scope.
 */
export function jobFailureReason(error: unknown, reasonOf: (error: ActivityFailure) => string): string | null {
  if (isCancellation(error)) return CANCELLED_REASON;
  return error instanceof ActivityFailure ? reasonOf(error) : null;
}

/** Records the failure and announces it even while the workflow is being cancelled, so no job stays `processing`. */
export async function recordJobFailure(record: () => Promise<unknown>, announce: () => Promise<unknown>): Promise<void> {
  await CancellationScope.nonCancellable(record);
  await CancellationScope.nonCancellable(announce);
}
