import type { temporal } from '@temporalio/proto';
import { expect } from 'vitest';
import { JOB_GONE } from '../../src/errors.ts';
import type { Harness } from './harness.ts';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const LOCAL_ACTIVITY = 'core_local_activity';

/** An activity's failure and the attempt it came from: an ordinary activity's, or a local activity's (its marker). */
function failedActivity(events: HistoryEvent[], event: HistoryEvent) {
  const failed = event.activityTaskFailedEventAttributes;
  if (failed) {
    const started = events.find((e) => Number(e.eventId) === Number(failed.startedEventId));
    return { failure: failed.failure, attempt: started?.activityTaskStartedEventAttributes?.attempt };
  }
  const marker = event.markerRecordedEventAttributes;
  if (marker?.markerName !== LOCAL_ACTIVITY || !marker.failure) return null;
  const data = marker.details?.data?.payloads?.[0]?.data;
  return { failure: marker.failure, attempt: data ? (JSON.parse(Buffer.from(data).toString()) as { attempt: number }).attempt : undefined };
}

/**
 * The one convention for a job deleted while its workflow runs: an activity (ordinary or local) fails once,
 * without retries, with the non-retryable `JobGoneError`, and the workflow then ends quietly: completed,
 * scheduling nothing more (no failure recorded, no event announced).
 */
export async function expectEndedOnJobGone(h: Harness, workflowId: string): Promise<void> {
  const handle = h.temporal.workflow.getHandle(workflowId);
  await handle.result();
  expect((await handle.describe()).status.name).toBe('COMPLETED');
  const events = (await handle.fetchHistory()).events ?? [];
  const goneAt = events.findIndex((e) => failedActivity(events, e)?.failure?.applicationFailureInfo?.type === JOB_GONE);
  expect(goneAt).toBeGreaterThan(-1);
  const gone = failedActivity(events, events[goneAt]!)!;
  expect(gone.failure!.applicationFailureInfo!.nonRetryable).toBe(true);
  expect(gone.attempt).toBe(1);
  const later = events.slice(goneAt + 1);
  expect(later.filter((e) => e.activityTaskScheduledEventAttributes || e.markerRecordedEventAttributes?.markerName === LOCAL_ACTIVITY)).toEqual([]);
}
