import { isUtf8 } from 'node:buffer';
import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../env.ts';

// The content types Hono's JSON validator parses; anything else is its 415, not ours.
const JSON_TYPE = /^application\/([a-z-.]+\+)?json(;|$)/i;

/**
 * JSON is UTF-8 (RFC 8259), and decoding it quietly turns invalid bytes into U+FFFD, storing text the client never
 * sent. The body is read as bytes once (Hono caches them for the validator and the idempotency hash) and refused
 * whole, as the CSV import refuses a file that is not UTF-8.
 */
export const utf8Json: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (JSON_TYPE.test(c.req.header('content-type') ?? '') && !isUtf8(await c.req.arrayBuffer())) {
    throw new ApiError('validation_error', 'The request body is not UTF-8 text', [
      { path: 'json', reason: 'invalid_encoding', message: 'The body holds bytes that are not UTF-8; send JSON as UTF-8' },
    ]);
  }
  return next();
};
