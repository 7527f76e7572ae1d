import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../errors.ts';

const BODY_TYPES = ['application/json', 'multipart/form-data'];

/** A body in any other format than the API speaks is refused before a handler reads it. */
export const requireKnownContentType: MiddlewareHandler = async (c, next) => {
  const type = c.req.header('content-type');
  const hasBody = c.req.header('content-length') !== undefined && c.req.header('content-length') !== '0';
  if (type && hasBody && !BODY_TYPES.some((t) => type.toLowerCase().startsWith(t))) {
    throw new ApiError('unsupported_media_type', `Content-Type ${type.split(';')[0]} is not accepted; send application/json`);
  }
  await next();
};
