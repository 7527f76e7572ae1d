import { ApplicationFailure } from '@temporalio/common';
import { JOB_GONE, JobGoneError } from '../src/errors.ts';

type Activity = (...args: never[]) => Promise<unknown>;

/**
 * The one way a job kind's activities say "the job is gone": a `JobGoneError` from any repository becomes a
 * non-retryable failure of type `JobGoneError` (no retry can bring the row back), on which the job's workflow
 * ends quietly (workflows/job-lifecycle.ts).
 */
export function jobActivities<T extends Record<string, Activity>>(activities: T): T {
  const guarded: Record<string, Activity> = {};
  for (const [name, activity] of Object.entries(activities)) {
    guarded[name] = async (...args) => {
      try {
        return await activity(...args);
      } catch (error) {
        if (error instanceof JobGoneError) throw ApplicationFailure.nonRetryable(error.message, JOB_GONE);
        throw error;
      }
    };
  }
  return guarded as T;
}
