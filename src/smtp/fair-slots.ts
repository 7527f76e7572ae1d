import type { Release } from '../concurrency.ts';

interface Waiter {
  grant: (release: Release) => void;
}

/**
 * The worker's connection slots, shared between owners (verification jobs): a freed slot goes to the
 * waiting owner that holds the fewest, the next in turn among equals, FIFO within an owner. A 20-address
 * job beside a 1,000,000-address one therefore gets every slot freed until it has what it asks for (or as
 * many as the large job), not every other one, and never waits for the large job's whole queue.
 */
export class FairSlots {
  readonly capacity: number;
  /** Slots each owner holds (owners holding none are absent). */
  readonly #held = new Map<string, number>();
  /** Waiting owners in turn order; an owner leaves the ring when its last waiter is served. */
  readonly #queues = new Map<string, Waiter[]>();

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`slot capacity must be a positive integer, got ${capacity}`);
    this.capacity = capacity;
  }

  get inUse(): number {
    let n = 0;
    for (const held of this.#held.values()) n += held;
    return n;
  }

  get waiting(): number {
    let n = 0;
    for (const queue of this.#queues.values()) n += queue.length;
    return n;
  }

  /** A slot is free now and nobody waits for one: taking it delays no one. */
  get spare(): boolean {
    return this.inUse < this.capacity && this.#queues.size === 0;
  }

  /** Someone other than `owner` waits for a slot: a session of `owner` should hand its slot on. */
  othersWaiting(owner: string): boolean {
    for (const waiting of this.#queues.keys()) if (waiting !== owner) return true;
    return false;
  }

  acquire(owner: string, signal?: AbortSignal): Promise<Release> {
    signal?.throwIfAborted();
    if (this.spare) return Promise.resolve(this.#releaser(owner));
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

  /** The first waiter of the waiting owner holding the fewest slots (the earliest in turn among equals); it moves to the end of the ring. */
  #next(): { owner: string; waiter: Waiter } | undefined {
    let chosen: string | undefined;
    for (const owner of this.#queues.keys())
      if (chosen === undefined || (this.#held.get(owner) ?? 0) < (this.#held.get(chosen) ?? 0)) chosen = owner;
    if (chosen === undefined) return undefined;
    const queue = this.#queues.get(chosen)!;
    this.#queues.delete(chosen);
    const waiter = queue.shift()!;
    if (queue.length > 0) this.#queues.set(chosen, queue);
    return { owner: chosen, waiter };
  }

  #releaser(owner: string): Release {
    this.#held.set(owner, (this.#held.get(owner) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const held = this.#held.get(owner)! - 1;
      if (held === 0) this.#held.delete(owner);
      else this.#held.set(owner, held);
      const next = this.#next();
      // The slot passes straight to the next waiter, so a newcomer cannot overtake the ring.
      next?.waiter.grant(this.#releaser(next.owner));
    };
  }
}
