import { createHash } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { claimKey, completeKey, releaseKey } from '../../db/repos/idempotency.ts';
import type { AppEnv } from '../env.ts';
import { ApiError } from '../../errors.ts';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotency-Replayed';
const KEY_FORMAT = /^[\x20-\x7e]{1,255}$/;

/** Neither a refusal for running in parallel nor a rate limit says anything about the request itself. */
const isStorable = (status: number, reason: unknown) => status < 500 && status !== 429 && !(status === 409 && reason === 'request_in_progress');

/**
 * CONTRACT §9.2, after authentication (the key is the organization's): the first response to a key is stored and
 * replayed for the same method, path and body; anything else under the key is refused.
 */
export const idempotency: MiddlewareHandler<AppEnv> = async (c, next) => {
  const key = c.req.header(IDEMPOTENCY_HEADER);
  if (key === undefined) return next();
  if (!KEY_FORMAT.test(key)) {
    throw new ApiError('validation_error', 'Invalid Idempotency-Key', [
      { path: 'header.idempotency-key', message: 'must be 1 to 255 printable ASCII characters' },
    ]);
  }
  // Hono keeps the text, so the route's own validator still reads the same body afterwards.
  const bodyHash = createHash('sha256').update(await c.req.text()).digest('hex');
  const em = c.var.em.fork();
  const claim = await claimKey(em, {
    organizationId: c.var.principal.organizationId,
    key,
    method: c.req.method,
    path: c.req.path,
    bodyHash,
  });
  if (claim.kind === 'running') {
    throw new ApiError('conflict', 'A request with this Idempotency-Key is still running', { reason: 'request_in_progress' });
  }
  if (claim.kind === 'mismatch') {
    throw new ApiError('unprocessable', 'This Idempotency-Key was used for a different request', { reason: 'idempotency_key_reused' });
  }
  if (claim.kind === 'done') {
    const headers: Record<string, string> = { [REPLAYED_HEADER]: 'true' };
    if (claim.contentType) headers['Content-Type'] = claim.contentType;
    return new Response(claim.status === 204 ? null : claim.body, { status: claim.status, headers });
  }
  try {
    await next();
  } catch (error) {
    await releaseKey(em, claim.id);
    throw error;
  }
  const text = await c.res.clone().text();
  let reason: unknown;
  try {
    reason = JSON.parse(text)?.error?.details?.reason;
  } catch {
    reason = undefined;
  }
  if (isStorable(c.res.status, reason)) await completeKey(em, claim.id, c.res.status, text, c.res.headers.get('content-type'));
  else await releaseKey(em, claim.id);
};
