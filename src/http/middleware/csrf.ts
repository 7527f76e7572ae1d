import type { Context } from 'hono';
import type { AppEnv } from '../env.ts';
import { ApiError } from '../../errors.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function originOf(value: string | undefined): string | null {
  if (!value) return null;
  try {
    return new URL(value).origin;
  } catch {
    return null;
  }
}

/** The origins a cookie-authenticated write may come from: the dashboard's and the service's own. */
export function trustedOrigins(c: Context<AppEnv>): string[] {
  const { config } = c.var.deps;
  return [...config.APP_ORIGINS, config.PUBLIC_ORIGIN ?? new URL(c.req.url).origin];
}

/** Cookies ride along on cross-site requests; an unsafe one must prove where it came from. */
export function assertSameOrigin(c: Context<AppEnv>) {
  if (SAFE_METHODS.has(c.req.method)) return;
  const origin = originOf(c.req.header('origin')) ?? originOf(c.req.header('referer'));
  if (!origin || !trustedOrigins(c).includes(origin)) {
    throw new ApiError('forbidden', 'Cross-site request refused: Origin or Referer must be an allowed origin', {
      reason: origin ? 'origin_not_allowed' : 'origin_missing',
    });
  }
}
