import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'pg';
import { reservePace } from './repository.ts';

/**
 * How late a request may reach the far side after its slot (the reservation's answer, timers, the connection, a
 * busy CPU) and still leave every one-second window within the rate: slots are spaced (1 s + this) / rate, so
 * rate + 1 requests span at least 1 s + this.
 */
export const ARRIVAL_JITTER_MS = 400;
/**
 * A request that would leave later than this after its slot (a slow answer from the database, a busy event loop)
 * gives the slot up and takes another: sent that late it would crowd the next slots' window. At most
 * MAX_RESERVATIONS times, so a process starved for CPU still sends.
 */
const LATE_MS = 150;
const MAX_RESERVATIONS = 10;

/**
 * At most `ratePerSecond` requests in any one-second window, counted across every process that shares the
 * database: each request reserves the next free slot on one PostgreSQL row, then sleeps in-process until it.
 */
export class SharedPacer {
  readonly #pool: Pool;
  readonly #name: string;
  readonly intervalMs: number;

  constructor(pool: Pool, name: string, ratePerSecond: number) {
    if (!(ratePerSecond > 0)) throw new Error(`pace ${name}: the rate must be positive`);
    this.#pool = pool;
    this.#name = name;
    this.intervalMs = (1000 + ARRIVAL_JITTER_MS) / ratePerSecond;
  }

  /**
   * Waits for a slot of `slots` intervals (more than one: this request counts as several, slowing the pace while
   * it is sent). Rejects with the signal's reason once `signal` aborts; the slot is then simply not used.
   */
  async take(slots = 1, signal?: AbortSignal): Promise<void> {
    for (let reservation = 1; ; reservation++) {
      signal?.throwIfAborted();
      const { waitMs, sentAt } = await reservePace(this.#pool, this.#name, slots, this.intervalMs);
      signal?.throwIfAborted();
      // The slot is at least `sentAt + waitMs` by this clock: the database's answer may have taken a while to come.
      const due = sentAt + waitMs;
      const left = due - performance.now();
      if (left > 0) {
        await sleep(left, undefined, signal ? { signal } : {}).catch((error: unknown) => {
          signal?.throwIfAborted();
          throw error;
        });
      }
      if (performance.now() - due <= LATE_MS || reservation === MAX_RESERVATIONS) return;
    }
  }
}
