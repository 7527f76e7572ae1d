import { ConnectionException, DriverException, UniqueConstraintViolationException } from '@mikro-orm/core';
import { ServiceError } from '@temporalio/client';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { log } from '../log.ts';
import type { AppEnv } from './env.ts';
import { ApiError } from '../errors.ts';
import { errorBody, statusOf } from './errors.ts';

// Network errors, and the SQLSTATEs of a server that cannot take work now: class 08 (connection exception), 53
// (insufficient resources: too many connections, out of memory or disk), 57P01-57P03 (shutting down, starting
// up), 55000 at connect (a database not accepting connections), 3D000 (the database is gone), 28xxx
// (credentials refused). None is the request's fault; each passes once the database is back.
// 57014 is a statement cancelled by its timeout (DATABASE_QUERY_TIMEOUT): the server is too slow, not the request wrong.
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', '55000', '3D000', '57014']);
const UNREACHABLE_CLASSES = ['08', '53', '57P', '28'];
// pg's own words for a connection that never came, a query never answered (a silent server), or one gone mid-query.
const UNREACHABLE_MESSAGES = /timeout exceeded when trying to connect|Query read timeout|Connection terminated|not queryable|Client was closed/i;
// Text PostgreSQL cannot store (NUL, invalid byte sequences) or a value out of a column's range is the input's fault.
const BAD_INPUT_CODES = new Set(['22021', '22P05', '22001', '22003', '22008', '22007', '22P02']);

function isUnreachable(err: unknown, depth = 0): boolean {
  if (err === null || typeof err !== 'object' || depth > 5) return false;
  if (err instanceof ConnectionException || err instanceof ServiceError) return true;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    const sqlState = /^[0-9A-Z]{5}$/.test(code);
    if (UNREACHABLE_CODES.has(code) || (sqlState && UNREACHABLE_CLASSES.some((c) => code.startsWith(c)))) return true;
  }
  if (err instanceof Error && UNREACHABLE_MESSAGES.test(err.message)) return true;
  const cause = (err as { cause?: unknown }).cause;
  return cause !== err && isUnreachable(cause, depth + 1);
}

/** How long a client should wait when PostgreSQL or Temporal is down: long enough not to hammer, short enough to notice recovery. */
const RETRY_AFTER_SECONDS = 5;

/** Every failure leaves in the contract's shape; nothing internal (stack, SQL) reaches the body. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof HTTPException) {
    if (err.status === 413) return new ApiError('payload_too_large', 'Request body is over the limit');
    if (err.status === 400) return new ApiError('validation_error', err.message || 'Malformed request');
    if (err.status === 415) return new ApiError('unsupported_media_type', 'Send the body as application/json');
  }
  if (err instanceof UniqueConstraintViolationException) return new ApiError('conflict', 'Resource already exists');
  if (isUnreachable(err)) return new ApiError('unavailable', 'A backing service is unreachable; retry later');
  if (err instanceof DriverException && BAD_INPUT_CODES.has((err as { code?: string }).code ?? '')) {
    return new ApiError('validation_error', 'A value cannot be stored as given (text with a NUL character, or out of range)');
  }
  return new ApiError('internal_error', 'Unexpected error');
}

export function handleError(err: Error, c: Context<AppEnv>) {
  const apiError = toApiError(err);
  const context = { requestId: c.get('requestId'), method: c.req.method, path: c.req.path, error: err.message };
  if (apiError.code === 'internal_error') log.error('request failed', { ...context, stack: err.stack });
  // An outage answers every request alike: one line each, without a stack that says nothing new.
  else if (apiError.code === 'unavailable') log.warn('request failed: dependency unavailable', context);
  if (apiError.code === 'unavailable' && !apiError.headers['Retry-After']) c.header('Retry-After', String(RETRY_AFTER_SECONDS));
  // A refused body is left unread, so the connection cannot carry another request (the server would drop it
  // after a short drain): a keep-alive client is told to open a new one instead of sending into a closing socket.
  if (apiError.code === 'payload_too_large') c.header('Connection', 'close');
  for (const [name, value] of Object.entries(apiError.headers)) c.header(name, value);
  return c.json(errorBody(apiError), statusOf(apiError));
}
