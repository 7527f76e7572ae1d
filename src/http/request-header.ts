import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';

/**
 * One request header by its lower-case name. On @hono/node-server it is read from Node's already parsed
 * request (`c.env.incoming`): asking `c.req` instead makes the server build and validate a fetch `Headers`
 * of every header the client sent, which was most of what the request id alone cost. Elsewhere (tests'
 * `app.request`, which may pass a partial `incoming`) the fetch Request is all there is.
 */
export function requestHeader(c: Context, name: Lowercase<string>): string | undefined {
  const headers = (c.env as { incoming?: Partial<IncomingMessage> } | undefined)?.incoming?.headers;
  if (!headers) return c.req.header(name);
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
