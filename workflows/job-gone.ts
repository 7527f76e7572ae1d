import { ActivityFailure, ApplicationFailure, patched } from '@temporalio/workflow';
import { JOB_GONE } from '../src/errors.ts';

/**
 * True when `error` says the job's row is gone (its list or organization was deleted while the workflow ran):
 * the workflow then ends quietly, completed, with nothing to record and no event to announce (the job's
 * snapshot is gone too). A history from before this convention replays the ending it took then (`patched`).
 */
export function jobGone(error: unknown): boolean {
  return (
    error instanceof ActivityFailure &&
    error.cause instanceof ApplicationFailure &&
    error.cause.type === JOB_GONE &&
    patched('job-gone')
  );
}
