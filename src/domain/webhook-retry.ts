/**
 * When a webhook delivery tries again (CONTRACT §9.3): the first retry after `firstMs` (at most 15 s), each wait 3×
 * the one before and at most `maxMs` (1 h), until the attempts have run for `forMs` (24 h); the first attempt at
 * or after that is the last. Pure, so the delivery workflow computes it deterministically.
 */
export interface RetrySchedule {
  firstMs: number;
  maxMs: number;
  forMs: number;
}

export const BACKOFF_FACTOR = 3;

/** The wait after failed attempt `attempt` (1-based) made `elapsedMs` after the first, or null when it was the last. */
export function waitAfter(schedule: RetrySchedule, attempt: number, elapsedMs: number): number | null {
  if (elapsedMs >= schedule.forMs) return null;
  return Math.min(schedule.maxMs, schedule.firstMs * BACKOFF_FACTOR ** (attempt - 1));
}
