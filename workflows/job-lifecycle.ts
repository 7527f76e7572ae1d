/**
 * What every job workflow shares from start to end: one continue-as-new rule, one heartbeat timeout, one failure
 * tail. A change to "what happens when a job fails" is made here once, for verification, scrape and enrichment.
 */
import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  ContinueAsNew,
  isCancellation,
  patched,
  workflowInfo,
} from '@temporalio/workflow';
import { JOB_FAILED, JOB_GONE } from '../src/errors.ts';
import type { JobKind } from '../src/temporal/shared.ts';
import { emitJobEvent } from './job-events.ts';

/** What a job shows when an operator cancelled its workflow (Temporal UI, `temporal workflow cancel`). */
export const CANCELLED_REASON = 'cancelled by an operator';

/**
 * A long activity heartbeats every second while it works (activities/heartbeat.ts) and the SDK sends the latest
 * every 8 s from its own threads, so only a dead worker misses this: its work moves to another worker within it.
 * What a user waits for after a worker dies.
 */
export const HEARTBEAT_TIMEOUT = '10 seconds';

/**
 * A run stops starting work once its history holds this many events and continues as new: what is still in flight
 * adds a few dozen more, so every run stays well under 2,000 events however large the job (Temporal's own
 * suggestion comes only at about 4,000).
 */
export const RUN_EVENT_BUDGET = 1_500;

/**
 * The run's budget: RUN_EVENT_BUDGET, or for a run recorded before this rule the budget its kind had then
 * (`legacy`; null: only Temporal's suggestion). Read once, at the start of the run.
 */
export const runEventBudget = (legacy: () => number | null): number | null => (patched('one-run-budget') ? RUN_EVENT_BUDGET : legacy());

/** The one continue-as-new rule: Temporal suggests it, or the run's history reached its budget. */
export function runIsFull(budget: number | null): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || (budget !== null && info.historyLength >= budget);
}

/**
 * True when `error` says the job's row is gone (its list or organization was deleted while the workflow ran):
 * the workflow then ends quietly, completed, with nothing to record and no event to announce (the job's
 * snapshot is gone too). A history from before this convention replays the ending it took then (`patched`).
 */
function jobGone(error: unknown): boolean {
  // An ordinary activity's failure carries the activity's error as its cause; a local activity's is that error.
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof ApplicationFailure && cause.type === JOB_GONE && patched('job-gone');
}

/**
 * The reason users read on a failed job, from the activity failure that retries could not fix: the provider's own
 * words (keys redacted) when a provider is why, never the text of an internal error.
 */
export function failureReason(provider: string, error: ActivityFailure): string {
  const cause = error.cause;
  if (cause instanceof ApplicationFailure) {
    if (cause.type === 'ProviderAuthError') return `The ${provider} cannot be used: ${cause.message}`;
    if (cause.type === 'SecretDecryptionError') return 'A stored provider key could not be decrypted: set it again in the enrichment provider settings';
    if (cause.type?.startsWith('Provider')) return `The ${provider} kept failing: ${cause.message}`;
  }
  return 'The job stopped after repeated internal errors';
}

export interface FailingJob {
  kind: JobKind;
  jobId: string;
  /** Which outside service the job depends on, as users know it ("search provider"), for its failure reason. */
  provider: string;
  /** Stores the job as failed with its reason (an activity; idempotent). */
  recordFailure: (reason: string) => Promise<unknown>;
  /** Run once the failure is stored, before handlers finish: what the workflow's own state must say. */
  onFailed?: () => void;
}

/**
 * The one tail of every job workflow, for the error that ended its main path. A handover to the next run goes on;
 * a job that is gone ends quietly; a failure of an activity (retries spent) or an operator's cancel is recorded
 * and announced even while the workflow is being cancelled, so no job stays `processing`, and the run fails with
 * type JOB_FAILED. Anything else is a bug in the workflow itself, which Temporal retries as a workflow task.
 */
export async function endWithFailure(job: FailingJob, error: unknown): Promise<void> {
  if (error instanceof ContinueAsNew) throw error;
  if (jobGone(error)) return await condition(allHandlersFinished);
  const cancelled = isCancellation(error);
  if (!cancelled && !(error instanceof ActivityFailure)) throw error;
  const reason = cancelled ? CANCELLED_REASON : failureReason(job.provider, error as ActivityFailure);
  try {
    await CancellationScope.nonCancellable(() => job.recordFailure(reason));
  } catch (recordError) {
    // Deleted while it failed: nothing left to record or announce.
    if (jobGone(recordError)) return;
    throw recordError;
  }
  await CancellationScope.nonCancellable(() => emitJobEvent(`${job.kind}.failed`, job.jobId));
  job.onFailed?.();
  if (cancelled) throw error;
  await condition(allHandlersFinished);
  throw ApplicationFailure.create({ message: reason, type: JOB_FAILED, nonRetryable: true, cause: error as ActivityFailure });
}
