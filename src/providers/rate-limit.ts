import { setTimeout as sleep } from 'node:timers/promises';

export interface RateLimitOptions {
  /** Sustained requests per second (may be fractional: 100 per minute = 100 / 60). */
  perSecond: number;
  /** Requests allowed back to back after an idle period. Default 1. */
  burst?: number;
}

/**
 * In-process token bucket (GCRA form: one "theoretical arrival time" instead of a token count).
 * One instance per adapter instance, and adapters are created once per worker, so every activity
 * of a worker shares the provider's budget. Callers are served in arrival order.
 */
export class TokenBucket {
  readonly #intervalMs: number;
  readonly #toleranceMs: number;
  #theoreticalArrival = 0;
  #blockedUntil = 0;

  constructor(options: RateLimitOptions) {
    const burst = options.burst ?? 1;
    if (!(options.perSecond > 0) || !Number.isFinite(options.perSecond)) {
      throw new RangeError('perSecond must be a positive number');
    }
    if (!Number.isInteger(burst) || burst < 1) throw new RangeError('burst must be a positive integer');
    this.#intervalMs = 1000 / options.perSecond;
    this.#toleranceMs = (burst - 1) * this.#intervalMs;
  }

  /** Resolves when the caller may send one request. */
  async take(): Promise<void> {
    for (;;) {
      const now = Date.now();
      const start = Math.max(now, this.#theoreticalArrival - this.#toleranceMs, this.#blockedUntil);
      this.#theoreticalArrival = Math.max(this.#theoreticalArrival, start) + this.#intervalMs;
      if (start <= now) return;
      await sleep(start - now);
      // A pause ordered while we slept (another caller saw a 429) sends us back in line.
      if (Date.now() >= this.#blockedUntil) return;
    }
  }

  /** Holds every caller for `ms` (the provider said it is overloaded). */
  pause(ms: number): void {
    this.#blockedUntil = Math.max(this.#blockedUntil, Date.now() + ms);
  }
}
