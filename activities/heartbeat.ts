import { Context } from '@temporalio/activity';
import type { BatchRun } from '../src/jobs/batch-run.ts';

// The SDK sends at most one heartbeat per 80 % of the heartbeat timeout, so a short local interval costs nothing.
const EVERY_MS = 1_000;

/**
 * Runs a job kind's batch work heartbeating on a timer, so long waits (SMTP queues, provider rate limits, search
 * slots) never look dead and a killed worker's activity moves to another within the heartbeat timeout
 * (workflows/job-lifecycle.ts). Heartbeats carry no details: every engine resumes from what the database holds.
 */
export async function heartbeating<T>(work: (run: BatchRun) => Promise<T>): Promise<T> {
  const ctx = Context.current();
  const beat = () => ctx.heartbeat();
  const timer = setInterval(beat, EVERY_MS);
  try {
    return await work({ signal: ctx.cancellationSignal, beat });
  } finally {
    clearInterval(timer);
  }
}
