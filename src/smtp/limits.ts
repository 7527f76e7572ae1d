/** Releases a slot; calling it more than once is harmless. */
export type Release = () => void;

interface Waiter {
  grant: (release: Release) => void;
}

/** Counting semaphore with FIFO fairness; a waiter whose signal aborts leaves the queue. */
export class Semaphore {
  readonly capacity: number;
  #inUse = 0;
  #waiters: Waiter[] = [];

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`semaphore capacity must be a positive integer, got ${capacity}`);
    this.capacity = capacity;
  }

  get inUse(): number {
    return this.#inUse;
  }

  get waiting(): number {
    return this.#waiters.length;
  }

  acquire(signal?: AbortSignal): Promise<Release> {
    signal?.throwIfAborted();
    if (this.#inUse < this.capacity) {
      this.#inUse += 1;
      return Promise.resolve(this.#releaser());
    }
    return new Promise<Release>((resolve, reject) => {
      const onAbort = (): void => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        grant: (release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      this.#waiters.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  #releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiters.shift();
      // The slot passes straight to the next waiter, so a newcomer cannot overtake the queue.
      if (next) next.grant(this.#releaser());
      else this.#inUse -= 1;
    };
  }
}
