import type { Release } from '../concurrency.ts';

interface Waiter {
  grant: (release: Release) => void;
}

/**
 * The worker's connection slots, shared round-robin between owners (verification jobs): a freed
 * slot goes to the next owner in turn that is waiting, FIFO within an owner. A 20-address job
 * therefore waits for one slot to free, not for a 100,000-address job's whole queue.
 */
export class FairSlots {
  readonly capacity: number;
  #inUse = 0;
  /** Waiting owners in turn order; an owner leaves the ring when its last waiter is served. */
  readonly #queues = new Map<string, Waiter[]>();

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`slot capacity must be a positive integer, got ${capacity}`);
    this.capacity = capacity;
  }

  get inUse(): number {
    return this.#inUse;
  }

  get waiting(): number {
    let n = 0;
    for (const queue of this.#queues.values()) n += queue.length;
    return n;
  }

  /** A slot is free now and nobody waits for one: taking it delays no one. */
  get spare(): boolean {
    return this.#inUse < this.capacity && this.#queues.size === 0;
  }

  /** Someone other than `owner` waits for a slot: a session of `owner` should hand its slot on. */
  othersWaiting(owner: string): boolean {
    for (const waiting of this.#queues.keys()) if (waiting !== owner) return true;
    return false;
  }

  acquire(owner: string, signal?: AbortSignal): Promise<Release> {
    signal?.throwIfAborted();
    if (this.#inUse < this.capacity && this.#queues.size === 0) {
      this.#inUse += 1;
      return Promise.resolve(this.#releaser());
    }
    return new Promise<Release>((resolve, reject) => {
      const onAbort = (): void => {
        const queue = this.#queues.get(owner);
        const rest = queue?.filter((w) => w !== waiter) ?? [];
        if (rest.length > 0) this.#queues.set(owner, rest);
        else this.#queues.delete(owner);
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        grant: (release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      const queue = this.#queues.get(owner);
      if (queue) queue.push(waiter);
      else this.#queues.set(owner, [waiter]);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** The first waiter of the owner whose turn it is; that owner moves to the end of the ring. */
  #next(): Waiter | undefined {
    for (const [owner, queue] of this.#queues) {
      this.#queues.delete(owner);
      const waiter = queue.shift();
      if (queue.length > 0) this.#queues.set(owner, queue);
      if (waiter) return waiter;
    }
    return undefined;
  }

  #releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#next();
      // The slot passes straight to the next waiter, so a newcomer cannot overtake the ring.
      if (next) next.grant(this.#releaser());
      else this.#inUse -= 1;
    };
  }
}
