import type { MiddlewareHandler } from 'hono';
import { v7 as uuidv7 } from 'uuid';
import type { AppDeps, AppEnv } from '../env.ts';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Request id (the caller's when well-formed), the dependencies, and a forked EntityManager per request. */
export function requestContext(deps: AppDeps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const given = c.req.header('x-request-id');
    const requestId = given && REQUEST_ID.test(given) ? given : uuidv7();
    c.set('requestId', requestId);
    c.set('deps', deps);
    c.set('em', deps.orm.em.fork());
    c.header('X-Request-Id', requestId);
    await next();
    c.res.headers.set('X-Request-Id', requestId);
  };
}
