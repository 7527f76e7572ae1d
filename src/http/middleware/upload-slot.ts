import type { MiddlewareHandler } from 'hono';
import { Semaphore } from '../../concurrency.ts';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../env.ts';

/**
 * CSV uploads handled at once per process. A 10 MiB file costs tens of MB while its rows are parsed, checked and
 * stored; the event loop runs one at a time anyway, so more at once only adds their memory together (a burst of
 * six took the API role past its 512 MB). Two, not one, so one upload's database round trips overlap the other's
 * parsing.
 */
const UPLOADS_AT_ONCE = 2;
const slots = new Semaphore(UPLOADS_AT_ONCE);

/**
 * An upload route's handler runs once a slot is free; the rest wait their turn in arrival order with their bodies
 * unread (TCP holds them back) and nothing else held, no database connection nor transaction. A client that goes
 * away while it waits leaves the queue.
 */
export const uploadSlot: MiddlewareHandler<AppEnv> = async (c, next) => {
  const release = await slots.acquire(c.req.raw.signal).catch(() => {
    throw new ApiError('validation_error', 'The upload was cut short', [{ path: 'body', message: 'The client went away while its upload waited its turn' }]);
  });
  try {
    await next();
  } finally {
    release();
  }
};
