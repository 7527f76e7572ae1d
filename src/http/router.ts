import { OpenAPIHono, type RouteConfig, createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AppEnv, Scope } from './env.ts';
import { ApiError, type ErrorCode } from '../errors.ts';
import { errorResponses } from './errors.ts';
import { requireApiKey } from './middleware/api-key.ts';
import { idempotency } from './middleware/idempotency.ts';
import { requireOwner, requireSession } from './middleware/session.ts';
import { uploadSlot } from './middleware/upload-slot.ts';
import { utf8Json } from './middleware/utf8-json.ts';

/** One sub-app per resource; every one turns zod failures into the contract's 400 the same way. */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        // A body of many bad elements would list as many issues: the first MAX_ISSUES say what is wrong.
        const details = result.error.issues.slice(0, MAX_ISSUES).map((issue) => ({
          path: [result.target, ...issue.path.map(String)].join('.'),
          message: issue.message,
        }));
        throw new ApiError('validation_error', `Invalid request ${result.target}`, details);
      }
      const nul = pathOfNul(result.data, [result.target]);
      if (nul) throw new ApiError('validation_error', `Invalid request ${result.target}`, [{ path: nul, message: 'Text may not contain a NUL character' }]);
    },
  });
}

/** Most validation issues a 400 lists. */
const MAX_ISSUES = 100;

/** PostgreSQL cannot store U+0000 in text; the first string holding one, as a field path, is refused up front. */
export function pathOfNul(value: unknown, path: string[]): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path.join('.') : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const found = pathOfNul(inner, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

/**
 * `idempotent`: the route creates a job or leads, or charges credits, and honours `Idempotency-Key` (CONTRACT §9.2).
 * `maxBodyBytes`: the largest JSON body the route reads (default JSON_BODY_BYTES); BODY_LIMIT_BYTES caps every body.
 */
type Extra = { errors?: ErrorCode[]; idempotent?: boolean; maxBodyBytes?: number };
/** `ownerOnly`: the route manages the organization; a member's session gets 403 `forbidden` (CONTRACT §15). */
type SessionExtra = Extra & { ownerOnly?: boolean };

/** The authentication, then the owner check when the route asks for it. */
const authenticate = (auth: MiddlewareHandler<AppEnv>, ownerOnly: boolean | undefined) => (ownerOnly ? [auth, requireOwner] : [auth]);

/**
 * What a JSON body may weigh unless its route says more: every such body is a few fields (the longest a list's
 * 5,000-character description), so 64 KiB leaves room for any escaping. Parsed JSON takes several times its
 * bytes, so the limit is what bounds the memory one request costs before its schema has seen it.
 */
const JSON_BODY_BYTES = 64 * 1024;
/** A bulk route's body (1,000 leads, 10,000 outcomes): as much as BODY_LIMIT_BYTES allows by default. */
export const BULK_BODY_BYTES = 1024 * 1024;

/**
 * The errors a route returns because of its shape, whatever its handler does, so no declaration can forget
 * them: input that fails its schema (400), a body over the limit (413: app.ts limits every body, a JSON route its
 * own, an upload its file), and an `Idempotency-Key` that is malformed (400), still running (409) or reused for another request (422).
 */
function impliedErrors(route: Plain, idempotent: boolean | undefined): ErrorCode[] {
  const implied: ErrorCode[] = [];
  const { params, query, headers, body } = route.request ?? {};
  if (params || query || headers || body || idempotent) implied.push('validation_error');
  if (!['get', 'head'].includes(route.method)) implied.push('payload_too_large');
  if (idempotent) implied.push('conflict', 'unprocessable');
  return implied;
}

const IdempotencyHeaders = z.object({
  'Idempotency-Key': z.string().optional().openapi({
    param: { name: 'Idempotency-Key', in: 'header' },
    description:
      '1–255 printable ASCII characters. Within 24 h the same key with the same request replays the first response ' +
      '(`Idempotency-Replayed: true`); with a different request it is a 422 (`idempotency_key_reused`); while the first still runs a 409 (`request_in_progress`).',
  }),
});

const ReplayedHeader = {
  'Idempotency-Replayed': {
    description: '`true` when this is the stored response to an earlier request with the same `Idempotency-Key`',
    schema: { type: 'string', enum: ['true'] },
  },
} as const;

/** A route taking a JSON body checks its encoding before anything reads it (the idempotency hash, the validator). */
function takesJson(route: Plain) {
  const content = (route.request?.body as { content?: Record<string, unknown> } | undefined)?.content ?? {};
  return Object.keys(content).some((type) => /json/i.test(type));
}

const takesUpload = (route: Plain) => 'multipart/form-data' in ((route.request?.body as { content?: Record<string, unknown> } | undefined)?.content ?? {});

/** Refuses a body over `maxSize` before it is read: by its Content-Length, or as a chunked one streams past it. */
export function limitBody(maxSize: number): MiddlewareHandler<AppEnv> {
  return bodyLimit({
    maxSize,
    onError: () => {
      throw new ApiError('payload_too_large', `Request body is over ${maxSize} bytes`);
    },
  });
}

/**
 * The body checks run after authentication (as the validator does), and the idempotency check too: keys belong to
 * the caller's organization. A JSON route's own size limit comes first, and the OpenAPI document states it. An
 * upload waits for its slot last, so a replayed answer never queues and a queued upload holds nothing else.
 */
function withMiddleware<R extends Plain>(plain: R, extra: Extra, auth: MiddlewareHandler<AppEnv>[]) {
  const { idempotent, maxBodyBytes = JSON_BODY_BYTES } = extra;
  const json = takesJson(plain);
  const route = json ? { ...plain, 'x-max-body-bytes': maxBodyBytes } : plain;
  const checks = json ? [...auth, limitBody(maxBodyBytes), utf8Json] : auth;
  const queue = takesUpload(plain) ? [uploadSlot] : [];
  if (!idempotent) return { route, middleware: [...checks, ...queue] };
  // Every stored answer (below 500) may come back as a replay, so each documented response may carry the header.
  const responses = Object.fromEntries(Object.entries(route.responses).map(([status, response]) => [status, { ...response, headers: ReplayedHeader }]));
  return { route: { ...route, request: { ...route.request, headers: IdempotencyHeaders }, responses }, middleware: [...checks, idempotency, ...queue] };
}
type Plain = Omit<RouteConfig, 'middleware' | 'security'>;

/** A route for the dashboard: session cookie, CSRF-checked, with its error responses documented. */
export function sessionRoute<const R extends Plain>(config: R & SessionExtra) {
  const { errors: declared = [], idempotent, maxBodyBytes, ownerOnly, ...plain } = config;
  const errors = [...declared, ...impliedErrors(plain, idempotent)];
  const { route, middleware } = withMiddleware(plain, { idempotent, maxBodyBytes }, authenticate(requireSession, ownerOnly));
  return createRoute({
    ...(route as R),
    security: [{ session: [] }] as Array<Record<string, string[]>>,
    middleware,
    responses: { ...errorResponses('unauthorized', 'forbidden', 'rate_limited', ...errors), ...route.responses } as R['responses'],
  });
}

/**
 * A route for integrations: `X-API-Key` holding one of `scopes` (any one grants access). The OpenAPI document
 * lists each accepted scope as an alternative `apiKey` requirement (OpenAPI 3.1 allows scopes on any scheme).
 */
export function apiKeyRoute<const R extends Plain>(scopes: Scope | readonly Scope[], config: R & Extra) {
  const { errors: declared = [], idempotent, maxBodyBytes, ...plain } = config;
  const errors = [...declared, ...impliedErrors(plain, idempotent)];
  const accepted: readonly Scope[] = typeof scopes === 'string' ? [scopes] : scopes;
  const { route, middleware } = withMiddleware(plain, { idempotent, maxBodyBytes }, [requireApiKey(accepted)]);
  const needs = `Requires an API key with the ${accepted.map((s) => `\`${s}\``).join(' or ')} scope.`;
  return createRoute({
    ...(route as R),
    description: route.description ? `${route.description}\n\n${needs}` : needs,
    security: accepted.map((scope) => ({ apiKey: [scope] })) as Array<Record<string, string[]>>,
    middleware,
    responses: { ...errorResponses('unauthorized', 'forbidden', 'rate_limited', ...errors), ...route.responses } as R['responses'],
  });
}

/**
 * A route taking either a session (the dashboard) or an `X-API-Key` holding `scope` (integrations), as
 * `/api/webhooks` does (CONTRACT §1.3): a request carrying a key is judged by its key alone.
 */
export function sessionOrKeyRoute<const R extends Plain>(scope: Scope, config: R & SessionExtra) {
  const { errors: declared = [], idempotent, maxBodyBytes, ownerOnly, ...plain } = config;
  const errors = [...declared, ...impliedErrors(plain, idempotent)];
  const byKey = requireApiKey([scope]);
  const either: MiddlewareHandler<AppEnv> = (c, next) => (c.req.header('x-api-key') === undefined ? requireSession(c, next) : byKey(c, next));
  const { route, middleware } = withMiddleware(plain, { idempotent, maxBodyBytes }, authenticate(either, ownerOnly));
  return createRoute({
    ...(route as R),
    security: [{ session: [] }, { apiKey: [scope] }] as Array<Record<string, string[]>>,
    middleware,
    responses: { ...errorResponses('unauthorized', 'forbidden', 'rate_limited', ...errors), ...route.responses } as R['responses'],
  });
}

/** A route without authentication (signup, login, health). */
export function publicRoute<const R extends Plain>(config: R & Extra) {
  const { errors: declared = [], maxBodyBytes, ...plain } = config;
  const errors = [...declared, ...impliedErrors(plain, false)];
  const { route, middleware } = withMiddleware(plain, { maxBodyBytes }, []);
  // `security: []` says "no credentials" outright; without it a reader (or a linter) cannot tell public from forgotten.
  return createRoute({ ...(route as R), security: [] as Array<Record<string, string[]>>, middleware, responses: { ...errorResponses(...errors), ...route.responses } as R['responses'] });
}

/**
 * Who a route declaration is mounted for: the dashboard (a session; the key scopes are not asked) or
 * integrations (an `X-API-Key` holding one of `scopes`). Routes that differ only in that are declared
 * once, as a function of the audience, and mounted twice.
 */
export interface Audience {
  route: <const R extends Plain>(scopes: Scope | readonly Scope[], config: R & Extra) => ReturnType<typeof sessionRoute<R>>;
  /** OpenAPI tag: the resource's own for the dashboard, `external-<resource>` for integrations. */
  tag: (resource: string) => string;
  /** Where leads created through these routes come from. */
  leadSource: 'manual' | 'api';
}

export const sessionAudience: Audience = {
  route: (_scopes, config) => sessionRoute(config),
  tag: (resource) => resource,
  leadSource: 'manual',
};

export const keyAudience: Audience = {
  route: (scopes, config) => apiKeyRoute(scopes, config),
  tag: (resource) => `external-${resource}`,
  leadSource: 'api',
};
