/**
 * Token buckets shared by every API process, without a database write per request: each process
 * reserves tokens from the shared bucket (PostgreSQL) in batches and spends them locally.
 *
 * Bound: a process never holds more than one batch, and every token it spends was taken from the shared
 * bucket first, so across N processes a key gets at most its budget plus N batches in any window (held
 * tokens reserved before the window, spent in it); the same held tokens are also the most a process can
 * keep from the others (a caller routed elsewhere may see 429 up to N - 1 batches early).
 */
import { LRUCache } from 'lru-cache';
import type { Reservation, TokenBucketPolicy } from './repository.ts';

export type { TokenBucketPolicy } from './repository.ts';

/** Where the shared budget lives: takes up to `wanted` tokens atomically for every process at once. */
export type TokenStore = (bucket: string, policy: TokenBucketPolicy, wanted: number) => Promise<Reservation>;

export interface RateLimitDecision {
  allowed: boolean;
  /** The burst: what `RateLimit-Limit` reports. */
  limit: number;
  /** Whole tokens left for this caller (this process's held tokens plus the shared bucket's, last seen). */
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Refused only: seconds until the next token. */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  /** Spends one token of `bucket` (any string naming the caller, e.g. `key:<id>` or `ip:<address>`). */
  take(bucket: string, policy: TokenBucketPolicy): Promise<RateLimitDecision>;
}

export interface RateLimiterOptions {
  /** The largest batch a process reserves at once (the overshoot bound per process). */
  maxBatch: number;
  /** Buckets remembered per process; the least recently used is forgotten (its held tokens are lost, never gained). */
  maxBuckets?: number;
}

/**
 * How many tokens one reservation asks for: a tenth of the burst, at least 1, at most `maxBatch`. Small
 * budgets (a login limit of 10) are then reserved one token at a time, exactly as without batching.
 */
export const batchSize = (policy: TokenBucketPolicy, maxBatch: number) => Math.max(1, Math.min(maxBatch, Math.floor(policy.burst / 10)));

interface Local {
  held: number;
  /** The shared bucket's tokens after the latest reservation, and when (ms): the refill since is estimated. */
  shared: number;
  sharedAt: number;
  pending: Promise<number> | null;
}

export function createRateLimiter(store: TokenStore, options: RateLimiterOptions): RateLimiter {
  const buckets = new LRUCache<string, Local>({ max: options.maxBuckets ?? 100_000 });

  function decide(local: Local, policy: TokenBucketPolicy, allowed: boolean): RateLimitDecision {
    const perSecond = policy.perMinute / 60;
    const shared = Math.min(policy.burst, local.shared + ((Date.now() - local.sharedAt) / 1000) * perSecond);
    const level = Math.min(policy.burst, local.held + Math.max(0, shared));
    return {
      allowed,
      limit: policy.burst,
      remaining: Math.max(0, Math.floor(level)),
      resetSeconds: Math.max(0, Math.ceil((policy.burst - level) / perSecond)),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - shared) / perSecond)),
    };
  }

  async function reserve(bucket: string, local: Local, policy: TokenBucketPolicy): Promise<number> {
    // Topping up to one batch, never beyond: what a process holds stays within the stated bound.
    const wanted = batchSize(policy, options.maxBatch) - Math.floor(local.held);
    if (wanted < 1) return 0;
    const { granted, tokens } = await store(bucket, policy, wanted);
    local.held += granted;
    local.shared = tokens;
    local.sharedAt = Date.now();
    return granted;
  }

  function refill(bucket: string, local: Local, policy: TokenBucketPolicy): Promise<number> {
    local.pending ??= reserve(bucket, local, policy).finally(() => {
      local.pending = null;
    });
    return local.pending;
  }

  return {
    async take(bucket, policy) {
      let local = buckets.get(bucket);
      if (!local) {
        local = { held: 0, shared: 0, sharedAt: 0, pending: null };
        buckets.set(bucket, local);
      }
      for (;;) {
        if (local.held >= 1) {
          local.held -= 1;
          // Half a batch left: top up in the background, so a busy key's requests never queue behind the
          // round trip (single-token budgets stay exact). A failed top-up is only a missed head start.
          const batch = batchSize(policy, options.maxBatch);
          if (batch > 1 && local.held < batch / 2 && !local.pending && local.shared >= 1) {
            refill(bucket, local, policy).catch(() => {});
          }
          return decide(local, policy, true);
        }
        // Concurrent requests of one bucket share one reservation; if it came back empty, all are refused.
        if ((await refill(bucket, local, policy)) === 0 && local.held < 1) return decide(local, policy, false);
      }
    },
  };
}
