import { ConnectionException, DriverException, UniqueConstraintViolationException } from '@mikro-orm/core';
import { ServiceError } from '@temporalio/client';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { log } from '../log.ts';
import type { AppEnv } from './env.ts';
import { ApiError } from './errors.ts';

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', '57P01', '57P03', '08006', '08001']);

function isUnreachable(err: unknown): boolean {
  if (err instanceof ConnectionException) return true;
  if (err instanceof ServiceError) return true;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return true;
  const cause = (err as { cause?: unknown }).cause;
  return cause !== undefined && cause !== err && isUnreachable(cause);
}

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
  if (err instanceof DriverException && (err as { code?: string }).code === '22P02') {
    return new ApiError('validation_error', 'Malformed identifier');
  }
  return new ApiError('internal_error', 'Unexpected error');
}

export function handleError(err: Error, c: Context<AppEnv>) {
  const apiError = toApiError(err);
  if (apiError.code === 'internal_error' || apiError.code === 'unavailable') {
    log.error('request failed', {
      requestId: c.get('requestId'),
      method: c.req.method,
      path: c.req.path,
      error: err.message,
      stack: err.stack,
    });
  }
  for (const [name, value] of Object.entries(apiError.headers)) c.header(name, value);
  return c.json(apiError.toBody(), apiError.status);
}
