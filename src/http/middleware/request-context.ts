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
    c.header('X-Request-Id', requestId);
    await next();
    // Only answers built without the context (a raw Response) lack it by now.
    if (!c.res.headers.has('X-Request-Id')) c.res.headers.set('X-Request-Id', requestId);
  };
}
