import type { ProviderTuning } from '../../../src/providers/http.ts';

/** Adapter tuning for tests: real retry logic with millisecond delays and no rate limiting in the way. */
export const FAST_TUNING = {
  timeoutMs: 2_000,
  retry: { maxAttempts: 3, baseDelayMs: 2, maxDelayMs: 10, maxRetryAfterMs: 2_000 },
  rateLimit: { perSecond: 10_000, burst: 10_000 },
} satisfies ProviderTuning;

/** Awaits `promise`, which must reject, and returns what it rejected with. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}
