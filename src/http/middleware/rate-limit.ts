import type { Context } from 'hono';
import type { RateLimitDecision, TokenBucketPolicy } from '../../rate-limit/limiter.ts';
import type { AppEnv } from '../env.ts';
import { ApiError } from '../../errors.ts';

/** The IETF draft's headers: `RateLimit-Limit` the burst, `-Remaining` whole tokens left, `-Reset` seconds until full. */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    'RateLimit-Limit': String(decision.limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': String(decision.resetSeconds),
  };
}

/**
 * Spends one token of the caller's bucket (`session:<id>`, `key:<id>`, or any name, e.g. `ip:<address>`)
 * under `policy` (default: RATE_LIMIT_PER_MINUTE, RATE_LIMIT_BURST) and reports it in the headers. Out of
 * tokens: 429 with `Retry-After`, the seconds until the next token.
 */
export async function enforceRateLimit(c: Context<AppEnv>, bucket: string, policy?: TokenBucketPolicy): Promise<void> {
  const { config, limiter } = c.get('deps');
  const { perMinute, burst } = policy ?? { perMinute: config.RATE_LIMIT_PER_MINUTE, burst: config.RATE_LIMIT_BURST };
  const decision = await limiter.take(bucket, { perMinute, burst });
  const headers = rateLimitHeaders(decision);
  if (!decision.allowed) {
    const retryAfter = decision.retryAfterSeconds;
    throw new ApiError(
      'rate_limited',
      `Rate limit of ${perMinute} requests per minute (bursts of ${burst}) reached; retry in ${retryAfter} s`,
      { retryAfterSeconds: retryAfter },
      { ...headers, 'Retry-After': String(retryAfter) },
    );
  }
  for (const name in headers) c.header(name, headers[name]);
}
