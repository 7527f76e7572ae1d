import type { MiddlewareHandler } from 'hono';
import { randomUUID } from 'node:crypto';
import type { AppDeps, AppEnv } from '../env.ts';
import { requestHeader } from '../request-header.ts';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Request id (the caller's when well-formed, else a random UUID: Node's buffered generator, where a UUIDv7
 * drew fresh random bytes per request), the dependencies, and a forked EntityManager per request.
 */
export function requestContext(deps: AppDeps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const given = requestHeader(c, 'x-request-id');
    const requestId = given && REQUEST_ID.test(given) ? given : randomUUID();
    c.set('requestId', requestId);
    c.set('deps', deps);
    c.set('em', deps.orm.em.fork());
    // Every answer built through the context carries it; reading `c.res.headers` afterwards to catch the
    // others would build a fetch Headers for every response, so the one raw Response (an idempotent
    // replay) sets it itself.
    c.header('X-Request-Id', requestId);
    await next();
  };
}
