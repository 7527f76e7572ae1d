import type { MiddlewareHandler } from 'hono';
import type { ApiKeyCheck } from '../../auth/api-key-cache.ts';
import { addLogContext } from '../../log.ts';
import type { AppEnv, Scope } from '../env.ts';
import { ApiError } from '../../errors.ts';
import { errorBody, statusOf } from '../errors.ts';
import { requestHeader } from '../request-header.ts';
import { enforceRateLimit } from './rate-limit.ts';

export const API_KEY_HEADER = 'X-API-Key';

type Refusal = Extract<ApiKeyCheck, { ok: false }>['reason'];
const refusal = (reason: Refusal, message: string) => new ApiError('unauthorized', message, { reason });

// Built once: a refusal is the cheapest answer there is, and capturing a fresh stack trace for each one
// was the largest single cost of a 401 (the trace says nothing a refusal needs).
const REFUSALS: Record<Refusal, ApiError> = {
  missing: refusal('missing', `Send an API key in the ${API_KEY_HEADER} header`),
  malformed: refusal('malformed', 'The API key is malformed'),
  unknown: refusal('unknown', 'The API key is not known'),
  revoked: refusal('revoked', 'The API key has been revoked'),
  expired: refusal('expired', 'The API key has expired'),
};
// Their bodies, serialized once: a refusal is answered here rather than thrown through every layer to
// the error handler (each async layer would reject in turn), with the bytes the handler would send.
const REFUSAL_BODIES = Object.fromEntries(
  Object.entries(REFUSALS).map(([reason, error]) => [reason, JSON.stringify(errorBody(error))]),
) as Record<Refusal, string>;
const JSON_TYPE = { 'Content-Type': 'application/json' };

/**
 * Integration routes: an `X-API-Key` holding any one of `scopes`, acting for the key's organization.
 * Cookies are ignored here, so a browser session never reaches these routes (and no CSRF check is needed:
 * nothing is sent along automatically). The key is checked from memory (see auth/api-key-cache.ts).
 */
export function requireApiKey(scopes: readonly Scope[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const { keys } = c.get('deps');
    const check = await keys.check(requestHeader(c, 'x-api-key'));
    if (!check.ok) return c.body(REFUSAL_BODIES[check.reason], statusOf(REFUSALS[check.reason]), JSON_TYPE);
    const { apiKey } = check;
    addLogContext({ organizationId: apiKey.organizationId });
    c.set('principal', { kind: 'api_key', organizationId: apiKey.organizationId, userId: null, role: null, apiKeyId: apiKey.id, scopes: apiKey.scopes });
    await enforceRateLimit(c, `key:${apiKey.id}`);
    await keys.recordUse(apiKey);
    if (!scopes.some((scope) => apiKey.scopes.includes(scope))) {
      throw new ApiError('forbidden', `This API key lacks the ${scopes.join(' or ')} scope`, {
        requiredScope: scopes[0],
        acceptedScopes: scopes,
      });
    }
    await next();
  };
}
