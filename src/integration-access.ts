/**
 * What every integration request needs without a database round trip: key checks from memory (kept
 * current by LISTEN/NOTIFY) and rate limits reserved in batches, plus the `pg` pool that hot queries use
 * as named prepared statements. Started once per API process, next to the ORM (DATABASE_POOL_MAX each).
 */
import type { Pool } from 'pg';
import { type ApiKeyVerifier, createApiKeyVerifier } from './auth/api-key-cache.ts';
import { lookupApiKey, recordApiKeyUse } from './auth/api-keys.ts';
import type { Config } from './config.ts';
import { listen } from './db/listener.ts';
import { databaseLimits, limitedPool } from './db/pg-options.ts';
import { reserveTokens } from './rate-limit/repository.ts';
import { createRateLimiter, type RateLimiter } from './rate-limit/limiter.ts';

export const API_KEY_CHANNEL = 'api_key_changed';

/**
 * Does not wait for the listener: until it is listening, keys are checked against the database on every
 * request (nothing is cached), so a process that starts while PostgreSQL is down still answers, with 503s.
 */
export interface IntegrationAccess {
  pool: Pool;
  keys: ApiKeyVerifier;
  limiter: RateLimiter;
}

export function startIntegrationAccess(config: Config): IntegrationAccess & { ready: Promise<void>; close(): Promise<void> } {
  // A pool of its own rather than the ORM's: creating it connects nothing, so a process started while
  // PostgreSQL is down still comes up and answers 503 until it is back.
  const limits = databaseLimits(config);
  const pool = limitedPool(config, config.DATABASE_POOL_MAX, 'integration-access');
  const keys = createApiKeyVerifier({
    lookup: (keyHash) => lookupApiKey(pool, keyHash),
    touch: (id) => recordApiKeyUse(pool, id),
    ttlMs: config.API_KEY_CACHE_TTL,
    negativeTtlMs: config.API_KEY_NEGATIVE_CACHE_TTL,
  });
  const listener = listen(config.DATABASE_URL!, limits, API_KEY_CHANNEL, {
    notify: (keyHash) => keys.forget(keyHash),
    connected: () => keys.setLive(true),
    disconnected: () => keys.setLive(false),
  });
  const limiter = createRateLimiter((bucket, policy, wanted) => reserveTokens(pool, bucket, policy, wanted), {
    maxBatch: config.RATE_LIMIT_BATCH,
  });
  return {
    pool,
    keys,
    limiter,
    ready: listener.ready,
    async close() {
      await listener.close();
      await pool.end();
    },
  };
}
