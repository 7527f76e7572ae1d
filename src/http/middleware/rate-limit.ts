import type { Context } from 'hono';
import { takeToken } from '../../db/repos/rate-limits.ts';
import type { AppEnv } from '../env.ts';
import { ApiError } from '../errors.ts';

/**
 * Spends one token of the caller's bucket (`session:<id>` or `key:<id>`) and reports the budget in the
 * IETF draft's headers: `RateLimit-Limit` is the burst, `RateLimit-Remaining` the whole tokens left and
 * `RateLimit-Reset` the seconds until the bucket is full again. Out of tokens: 429 with `Retry-After`,
 * the seconds until the next token.
 */
export async function enforceRateLimit(c: Context<AppEnv>, bucket: string): Promise<void> {
  const { RATE_LIMIT_PER_MINUTE: perMinute, RATE_LIMIT_BURST: burst } = c.var.deps.config;
  const { granted, tokens } = await takeToken(c.var.em, bucket, { perMinute, burst });
  const perSecond = perMinute / 60;
  const headers = {
    'RateLimit-Limit': String(burst),
    'RateLimit-Remaining': String(Math.max(0, Math.floor(tokens))),
    'RateLimit-Reset': String(Math.max(0, Math.ceil((burst - tokens) / perSecond))),
  };
  if (!granted) {
    const retryAfter = Math.max(1, Math.ceil((1 - tokens) / perSecond));
    throw new ApiError(
      'rate_limited',
      `Rate limit of ${perMinute} requests per minute (bursts of ${burst}) reached; retry in ${retryAfter} s`,
      { retryAfterSeconds: retryAfter },
      { ...headers, 'Retry-After': String(retryAfter) },
    );
  }
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
}
