import type { MiddlewareHandler } from 'hono';
import { type Release, Semaphore } from '../../concurrency.ts';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../env.ts';

/**
 * CSV uploads received at once per process. Receiving costs a stream's buffers (a body that may be over the limit is
 * written to a temporary file, so at most this many of those at once); the rest wait unread.
 */
export const RECEIVING_AT_ONCE = 8;
/**
 * Received uploads parsed, checked and stored at once per process. A 10 MiB file costs tens of MB while its rows are
 * parsed, checked and stored; the event loop runs one at a time anyway, so more at once only adds their memory
 * together (a burst of six took the API role past its 512 MB). Two, not one, so one upload's database round trips
 * overlap the other's parsing. A file over the limit is refused while it is received, without waiting for a turn
 * here: before, it waited behind the others' parsing (5.5–6.6 s in the hostile bench) only to be refused.
 */
export const PARSING_AT_ONCE = 2;
const receiving = new Semaphore(RECEIVING_AT_ONCE);
const parsing = new Semaphore(PARSING_AT_ONCE);

const gone = () =>
  new ApiError('validation_error', 'The upload was cut short', [{ path: 'body', message: 'The client went away while its upload waited its turn' }]);

/**
 * An upload route's handler runs once a receiving slot is free; the rest wait their turn in arrival order with their
 * bodies unread (TCP holds them back) and nothing else held, no database connection nor transaction. A client that
 * goes away while it waits leaves the queue.
 */
export const uploadSlot: MiddlewareHandler<AppEnv> = async (c, next) => {
  const release = await receiving.acquire(c.req.raw.signal).catch(() => {
    throw gone();
  });
  try {
    await next();
  } finally {
    release();
  }
};

/** A received upload's turn to be parsed and stored (PARSING_AT_ONCE), in arrival order; leaves the queue if its client goes away. */
export function parsingTurn(signal: AbortSignal): Promise<Release> {
  return parsing.acquire(signal).catch(() => {
    throw gone();
  });
}
