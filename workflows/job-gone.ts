import { ActivityFailure, ApplicationFailure, patched } from '@temporalio/workflow';
import { JOB_GONE } from '../src/errors.ts';

/**
 * True when `error` says the job's row is gone (its list or organization was deleted while the workflow ran):
 * the workflow then ends quietly, completed, with nothing to record and no event to announce (the job's
 * snapshot is gone too). A history from before this convention replays the ending it took then (`patched`).
 */
export function jobGone(error: unknown): boolean {
  // An ordinary activity's failure carries the activity's error as its cause; a local activity's is that error.
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof ApplicationFailure && cause.type === JOB_GONE && patched('job-gone');
}
