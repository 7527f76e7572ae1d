import type { Pool } from 'pg';

export interface TokenBucketPolicy {
  /** Sustained rate: tokens added per minute. */
  perMinute: number;
  /** Bucket size: how many requests may come at once after a quiet spell. */
  burst: number;
}

export interface Reservation {
  /** Whole tokens handed to the caller, 0 to `wanted`. */
  granted: number;
  /** Tokens left in the shared bucket after this reservation. */
  tokens: number;
}

// The bucket's level now: what it held plus what flowed in since, capped at the burst. Time is the
// database's (one clock for every process); a writer that started earlier but got the row lock later
// never sees negative elapsed time.
const LEVEL = `least($2::float8, b.tokens + greatest(0, extract(epoch from now() - b.updated_at)::float8) * $3::float8)`;

// `granted` stores what this reservation got because RETURNING only sees the row it wrote.
const RESERVE = `
insert into rate_limit_bucket as b (bucket, tokens, granted, updated_at)
values ($1, $2::float8 - least($4::int, $2::int), least($4::int, $2::int), now())
on conflict (bucket) do update set
  granted = least($4::int, floor(${LEVEL})::int),
  tokens = ${LEVEL} - least($4::int, floor(${LEVEL})::int),
  updated_at = greatest(b.updated_at, now())
returning tokens, granted`;

/**
 * Takes up to `wanted` whole tokens from `bucket` in one atomic statement: the refill is computed in SQL
 * under the row lock the upsert takes, so any number of API processes draw on one budget. A bucket with
 * less than a token grants nothing and loses nothing (its refill is still recorded). A named statement:
 * each pooled connection parses and plans it once.
 */
export async function reserveTokens(pool: Pool, bucket: string, policy: TokenBucketPolicy, wanted: number): Promise<Reservation> {
  const result = await pool.query<Reservation>({
    name: 'rate_limit_reserve',
    text: RESERVE,
    values: [bucket, policy.burst, policy.perMinute / 60, wanted],
  });
  const row = result.rows[0];
  if (!row) throw new Error('rate limit upsert returned no row');
  return { granted: row.granted, tokens: row.tokens };
}
