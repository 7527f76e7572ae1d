import type { EntityManager } from '@mikro-orm/postgresql';

export interface TokenBucketPolicy {
  /** Sustained rate: tokens added per minute. */
  perMinute: number;
  /** Bucket size: how many requests may come at once after a quiet spell. */
  burst: number;
}

export interface TokenTake {
  granted: boolean;
  /** Tokens left in the bucket after this request. */
  tokens: number;
}

// The bucket's level now: what it held plus what flowed in since, capped at the burst. Time is the
// database's (one clock for every process); a writer that started earlier but got the row lock later
// never sees negative elapsed time.
const LEVEL = `least(?::float8, b.tokens + greatest(0, extract(epoch from now() - b.updated_at)::float8) * ?::float8)`;

const TAKE = `
insert into rate_limit_bucket as b (bucket, tokens, granted, updated_at)
values (?, ?::float8 - 1, true, now())
on conflict (bucket) do update set
  granted = ${LEVEL} >= 1,
  tokens = ${LEVEL} - (${LEVEL} >= 1)::int,
  updated_at = greatest(b.updated_at, now())
returning tokens, granted`;

/**
 * Takes one token from `bucket` in a single atomic statement: the refill is computed in SQL under the row
 * lock that the upsert takes, so concurrent requests from any number of API processes share one budget.
 * A refused request takes nothing (its refill is still recorded), so a client that keeps retrying recovers
 * as fast as one that waits.
 */
export async function takeToken(em: EntityManager, bucket: string, policy: TokenBucketPolicy): Promise<TokenTake> {
  const perSecond = policy.perMinute / 60;
  const level = [policy.burst, perSecond];
  const [row] = await em.execute<Array<{ tokens: number; granted: boolean }>>(TAKE, [bucket, policy.burst, ...level, ...level, ...level]);
  if (!row) throw new Error('rate limit upsert returned no row');
  return { granted: row.granted, tokens: row.tokens };
}
