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

/** One semaphore per key (an MX host name), created on first use and dropped when idle. */
export class KeyedSemaphore {
  readonly capacity: number;
  #byKey = new Map<string, Semaphore>();

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  async acquire(key: string, signal?: AbortSignal): Promise<Release> {
    let semaphore = this.#byKey.get(key);
    if (!semaphore) {
      semaphore = new Semaphore(this.capacity);
      this.#byKey.set(key, semaphore);
    }
    const owned = semaphore;
    let release: Release;
    try {
      release = await owned.acquire(signal);
    } catch (error) {
      this.#forgetIfIdle(key, owned);
      throw error;
    }
    return () => {
      release();
      this.#forgetIfIdle(key, owned);
    };
  }

  #forgetIfIdle(key: string, semaphore: Semaphore): void {
    if (semaphore.inUse === 0 && semaphore.waiting === 0 && this.#byKey.get(key) === semaphore)
      this.#byKey.delete(key);
  }
}

/**
 * The two process-wide connection bounds of the prober: `perHost` connections to any one MX host
 * and `total` connections overall. The per-host slot is taken first so that a session waiting for
 * a busy host does not sit on one of the scarcer global slots.
 */
export class ConnectionLimits {
  readonly #perHost: KeyedSemaphore;
  readonly #total: Semaphore;

  constructor(limits: { perHost: number; total: number }) {
    this.#perHost = new KeyedSemaphore(limits.perHost);
    this.#total = new Semaphore(limits.total);
  }

  get activeConnections(): number {
    return this.#total.inUse;
  }

  async acquire(host: string, signal?: AbortSignal): Promise<Release> {
    const releaseHost = await this.#perHost.acquire(host.toLowerCase(), signal);
    try {
      const releaseTotal = await this.#total.acquire(signal);
      return () => {
        releaseTotal();
        releaseHost();
      };
    } catch (error) {
      releaseHost();
      throw error;
    }
  }
}
