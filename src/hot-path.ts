/**
 * What every integration request needs without a database round trip: key checks from memory (kept
 * current by LISTEN/NOTIFY) and rate limits reserved in batches, plus the `pg` pool that hot queries use
 * as named prepared statements. Started once per API process, next to the ORM whose pool it shares.
 */
import type { Pool } from 'pg';
import { type ApiKeyVerifier, createApiKeyVerifier } from './auth/api-key-cache.ts';
import { lookupApiKey, recordApiKeyUse } from './auth/api-keys.ts';
import type { Config } from './config.ts';
import { listen } from './db/listener.ts';
import type { Orm } from './db/orm.ts';
import { reserveTokens } from './db/repos/rate-limits.ts';
import { createRateLimiter, type RateLimiter } from './rate-limit/limiter.ts';

export const API_KEY_CHANNEL = 'api_key_changed';

export interface HotPath {
  pool: Pool;
  keys: ApiKeyVerifier;
  limiter: RateLimiter;
}

export async function startHotPath(config: Config, orm: Orm): Promise<HotPath & { close(): Promise<void> }> {
  const pool = (await orm.em.getConnection().getNativeClient()) as Pool;
  const keys = createApiKeyVerifier({
    lookup: (keyHash) => lookupApiKey(pool, keyHash),
    touch: (id) => recordApiKeyUse(pool, id),
    ttlMs: config.API_KEY_CACHE_TTL,
    negativeTtlMs: config.API_KEY_NEGATIVE_CACHE_TTL,
  });
  const listener = listen(config.DATABASE_URL!, API_KEY_CHANNEL, {
    notify: (keyHash) => keys.forget(keyHash),
    connected: () => keys.setLive(true),
    disconnected: () => keys.setLive(false),
  });
  await listener.ready;
  const limiter = createRateLimiter((bucket, policy, wanted) => reserveTokens(pool, bucket, policy, wanted), {
    maxBatch: config.RATE_LIMIT_BATCH,
  });
  return { pool, keys, limiter, close: () => listener.close() };
}
