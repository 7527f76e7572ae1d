import { vi } from 'vitest';

export interface EventuallyOptions {
  /** Named in the timeout error, so a failure says what never happened. */
  what: string;
  /** Generous by default: jobs run on a worker at their own pace on a shared, loaded machine. */
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * The tests' one way to wait for something observable: reads until `done` accepts a value and returns that value.
 * A read that throws is read again (a process or row may not be there yet); on timeout the error names `what`
 * and the last value or error.
 */
export function eventually<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  { what, timeoutMs = 60_000, intervalMs = 50 }: EventuallyOptions,
): Promise<T> {
  return vi.waitFor(
    async () => {
      const value = await read();
      if (!done(value)) throw new Error(`last value: ${JSON.stringify(value)?.slice(0, 1_000)}`);
      return value;
    },
    { timeout: timeoutMs, interval: intervalMs, message: `${what}: not within ${timeoutMs} ms` },
  );
}
