import { createHash } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { ApiError } from '../../errors.ts';
import { claimIdempotencyKey } from '../../idempotency/keys.ts';
import { isMultipart } from '../multipart.ts';
import { requestEm } from './request-context.ts';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotency-Replayed';
const KEY_FORMAT = /^[\x20-\x7e]{1,255}$/;
/** A request holding its key is usually a handler of a second or less: the retry comes back soon, not at once. */
const IN_PROGRESS_RETRY_AFTER_SECONDS = 1;

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
  // An upload is hashed as the route streams it (never held whole); a JSON body is small and hashed up front
  // (Hono keeps the text, so the route's own validator still reads the same body afterwards).
  const streamed = isMultipart(c.req.header('content-type')) && c.req.raw.body !== null;
  const bodyHash = streamed ? null : createHash('sha256').update(await c.req.text()).digest('hex');
  const claim = await claimIdempotencyKey(requestEm(c).fork(), {
    organizationId: c.var.principal.organizationId,
    key,
    method: c.req.method,
    path: c.req.path,
    bodyHash,
  });
  if (claim.kind === 'running') {
    throw new ApiError(
      'conflict',
      'A request with this Idempotency-Key is still running',
      { reason: 'request_in_progress' },
      { 'Retry-After': String(IN_PROGRESS_RETRY_AFTER_SECONDS) },
    );
  }
  if (claim.kind === 'mismatch') {
    throw new ApiError('unprocessable', 'This Idempotency-Key was used for a different request', { reason: 'idempotency_key_reused' });
  }
  if (claim.kind === 'done') {
    if (streamed && (await digestOf(c.req.raw)) !== claim.bodyHash) {
      throw new ApiError('unprocessable', 'This Idempotency-Key was used for a different request', { reason: 'idempotency_key_reused' });
    }
    const headers: Record<string, string> = { [REPLAYED_HEADER]: 'true', 'X-Request-Id': c.get('requestId') };
    if (claim.contentType) headers['Content-Type'] = claim.contentType;
    return new Response(claim.status === 204 ? null : claim.body, { status: claim.status, headers });
  }
  const tap = streamed ? hashAsRead(c.req.raw) : null;
  if (tap) c.req.raw = tap.request;
  try {
    await next();
  } catch (error) {
    await claim.release();
    throw error;
  }
  const streamedHash = tap ? await tap.digest() : null;
  const text = await c.res.clone().text();
  let reason: unknown;
  try {
    reason = JSON.parse(text)?.error?.details?.reason;
  } catch {
    reason = undefined;
  }
  // An upload whose body could not be read to its end (a broken multipart body) cannot be matched later: not stored.
  if (isStorable(c.res.status, reason) && !(tap && streamedHash === null)) {
    await claim.complete({ status: c.res.status, body: text, contentType: c.res.headers.get('content-type'), bodyHash: streamedHash });
  } else {
    await claim.release();
  }
};

/**
 * SHA-256 of a multipart body with its boundary left out: a client sending the same upload again (a retry rebuilds the
 * form) picks a new random boundary, and the request is still the same. Occurrences split across chunks are found
 * by holding back the last `boundary.length - 1` bytes.
 */
function multipartHash(contentType: string) {
  const match = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = Buffer.from(match?.[1] ?? match?.[2] ?? '', 'latin1');
  const hash = createHash('sha256');
  let held = Buffer.alloc(0);
  return {
    update(chunk: Uint8Array) {
      if (boundary.length === 0) {
        hash.update(chunk);
        return;
      }
      const buffer = Buffer.concat([held, chunk]);
      let from = 0;
      for (let at = buffer.indexOf(boundary, from); at !== -1; at = buffer.indexOf(boundary, from)) {
        hash.update(buffer.subarray(from, at));
        from = at + boundary.length;
      }
      const keep = Math.max(from, buffer.length - (boundary.length - 1));
      hash.update(buffer.subarray(from, keep));
      held = buffer.subarray(keep);
    },
    digest: () => hash.update(held).digest('hex'),
  };
}

async function digestOf(request: Request): Promise<string> {
  const hash = multipartHash(request.headers.get('content-type') ?? '');
  for await (const chunk of request.body!) hash.update(chunk);
  return hash.digest();
}

/** The request with a body that feeds the hash as the route reads it. */
function hashAsRead(request: Request) {
  const hash = multipartHash(request.headers.get('content-type') ?? '');
  let ended = false;
  const body = request.body!.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        hash.update(chunk);
        controller.enqueue(chunk);
      },
      flush() {
        ended = true;
      },
    }),
  );
  return {
    request: new Request(request, { body, duplex: 'half' } as RequestInit),
    /** The body's hash, reading what the route left unread (a 404 before the upload); null when the read broke off. */
    async digest(): Promise<string | null> {
      if (!ended && !body.locked) {
        try {
          for await (const _chunk of body) void _chunk;
        } catch {
          return null;
        }
      }
      return ended ? hash.digest() : null;
    },
  };
}
