import { expect } from 'vitest';
import { JOB_GONE } from '../../src/errors.ts';
import type { Harness } from './harness.ts';

/**
 * The one convention for a job deleted while its workflow runs: an activity fails once, without retries, with
 * the non-retryable `JobGoneError`, and the workflow then ends quietly: completed, scheduling nothing more (no
 * failure recorded, no event announced).
 */
export async function expectEndedOnJobGone(h: Harness, workflowId: string): Promise<void> {
  const handle = h.temporal.workflow.getHandle(workflowId);
  await handle.result();
  expect((await handle.describe()).status.name).toBe('COMPLETED');
  const events = (await handle.fetchHistory()).events ?? [];
  const goneAt = events.findIndex((e) => e.activityTaskFailedEventAttributes?.failure?.applicationFailureInfo?.type === JOB_GONE);
  expect(goneAt).toBeGreaterThan(-1);
  const failed = events[goneAt]!.activityTaskFailedEventAttributes!;
  expect(failed.failure!.applicationFailureInfo!.nonRetryable).toBe(true);
  const started = events.find((e) => Number(e.eventId) === Number(failed.startedEventId));
  expect(started?.activityTaskStartedEventAttributes?.attempt).toBe(1);
  expect(events.slice(goneAt).filter((e) => e.activityTaskScheduledEventAttributes)).toEqual([]);
}
