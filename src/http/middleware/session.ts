import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { findSession, SESSION_COOKIE } from '../../auth/sessions.ts';
import { ALL_SCOPES } from '../../domain/scopes.ts';
import { addLogContext } from '../../log.ts';
import type { AppEnv } from '../env.ts';
import { ApiError } from '../../errors.ts';
import { assertSameOrigin } from './csrf.ts';
import { enforceRateLimit } from './rate-limit.ts';
import { requestEm } from './request-context.ts';

export { ALL_SCOPES } from '../../domain/scopes.ts';

/** Dashboard routes: a live session cookie; unsafe methods must also pass the CSRF origin check; rate-limited per session. */
export const requireSession: MiddlewareHandler<AppEnv> = async (c, next) => {
  const token = getCookie(c, SESSION_COOKIE);
  const session = token ? await findSession(requestEm(c), token) : null;
  if (!session) throw new ApiError('unauthorized', 'Sign in first: no valid session');
  assertSameOrigin(c);
  addLogContext({ organizationId: session.organizationId });
  c.set('principal', {
    kind: 'session',
    organizationId: session.organizationId,
    userId: session.userId,
    role: session.role,
    apiKeyId: null,
    scopes: ALL_SCOPES,
  });
  await enforceRateLimit(c, `session:${session.sessionId}`);
  await next();
};

export const organizationId = (c: Context<AppEnv>) => c.var.principal.organizationId;

/**
 * After authentication, on the routes that manage the organization (API keys, providers, webhooks, invites,
 * members): a member's session is refused. An API key passes: only an owner can have made it.
 */
export const requireOwner: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.var.principal.role === 'member') {
    throw new ApiError('forbidden', 'Only the organization’s owner can do this', { requiredRole: 'owner' });
  }
  await next();
};
