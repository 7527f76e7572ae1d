import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context, MiddlewareHandler } from 'hono';
import { randomUUID } from 'node:crypto';
import type { AppDeps, AppEnv } from '../env.ts';
import { requestHeader } from '../request-header.ts';
import type { JobContext } from '../../jobs/context.ts';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Request id (the caller's when well-formed, else a random UUID: Node's buffered generator, where a UUIDv7
 * drew fresh random bytes per request) and the dependencies.
 */
export function requestContext(deps: AppDeps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const given = requestHeader(c, 'x-request-id');
    const requestId = given && REQUEST_ID.test(given) ? given : randomUUID();
    c.set('requestId', requestId);
    c.set('deps', deps);
    // Every answer built through the context carries it; reading `c.res.headers` afterwards to catch the
    // others would build a fetch Headers for every response, so the one raw Response (an idempotent
    // replay) sets it itself.
    c.header('X-Request-Id', requestId);
    await next();
  };
}

/**
 * The request's EntityManager, forked on first use: a fork costs about a tenth of a key-authenticated page
 * request, and the integrations' hot routes (key check from memory, pages on the integration-access pool) use none.
 */
export function requestEm(c: Context<AppEnv>): EntityManager {
  let em = c.get('em');
  if (!em) {
    em = c.get('deps').orm.em.fork();
    c.set('em', em);
  }
  return em;
}

/**
 * What the job services work with for this request: its EntityManager, its organization, Temporal. The
 * EntityManager is forked only when a service first reads it: the single-address check answers a malformed address
 * without one.
 */
export function jobContext(c: Context<AppEnv>): JobContext {
  const { temporal, config } = c.var.deps;
  return {
    get em() {
      return requestEm(c);
    },
    organizationId: c.var.principal.organizationId,
    temporal,
    config,
  };
}
