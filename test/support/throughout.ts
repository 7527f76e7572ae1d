import { setTimeout as sleep } from 'node:timers/promises';

export interface ThroughoutOptions {
  /** Named in the error, so a failure says what moved. */
  what: string;
  /**
   * How long nothing may move. Proving a negative needs a window: each caller states why its window is long
   * enough for the movement it rules out to have shown.
   */
  forMs: number;
  intervalMs?: number;
}

/**
 * The tests' one way to show that nothing moved: reads over a bounded window and fails on the first value
 * `holds` rejects (not only on the last one, so movement that is undone again still shows).
 */
export async function throughout<T>(
  read: () => T | Promise<T>,
  holds: (value: T) => boolean,
  { what, forMs, intervalMs = 50 }: ThroughoutOptions,
): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await read();
    if (!holds(value)) throw new Error(`${what}: broke after ${Date.now() - start} ms; value: ${JSON.stringify(value)?.slice(0, 1_000)}`);
    if (Date.now() - start >= forMs) return value;
    await sleep(intervalMs);
  }
}
