import type { Release } from '../concurrency.ts';

interface Waiter {
  grant: (release: Release) => void;
  /** Told when a slot about to be freed is promised to this waiter (see `freeingSoon`). */
  promised?: () => void;
  /** Left (its signal aborted) after a slot was promised to it: that slot goes to the next in turn instead. */
  gone: boolean;
}

interface Next {
  owner: string;
  waiter: Waiter;
}

/**
 * The worker's connection slots, shared between owners (verification jobs): a freed slot goes to the
 * waiting owner that holds the fewest, the next in turn among equals, FIFO within an owner. A 20-address
 * job beside a 1,000,000-address one therefore gets every slot freed until it has what it asks for (or as
 * many as the large job), not every other one, and never waits for the large job's whole queue.
 *
 * A holder about to free its slot may say so (`freeingSoon`): the next waiter is chosen then and told, so it gets
 * ready (its host's lease) while the slot is still held, and starts at once when the slot is freed.
 */
export class FairSlots {
  readonly capacity: number;
  /** Slots each owner holds (owners holding none are absent). */
  readonly #held = new Map<string, number>();
  /** Waiting owners in turn order; an owner leaves the ring when its last waiter is served. */
  readonly #queues = new Map<string, Waiter[]>();
  /** For each slot held: chooses and tells its successor (once) when its holder says it is freed soon. */
  readonly #freeingSoon = new WeakMap<Release, () => void>();

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

  /** A slot for `owner`; `promised` is told if a slot is promised before it is freed (see `freeingSoon`). */
  acquire(owner: string, options: { signal?: AbortSignal; promised?: () => void } = {}): Promise<Release> {
    const { signal, promised } = options;
    signal?.throwIfAborted();
    if (this.spare) return Promise.resolve(this.#releaser(owner));
    return new Promise<Release>((resolve, reject) => {
      const onAbort = (): void => {
        waiter.gone = true;
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
        gone: false,
        ...(promised ? { promised } : {}),
      };
      const queue = this.#queues.get(owner);
      if (queue) queue.push(waiter);
      else this.#queues.set(owner, [waiter]);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * The holder of `release` is about to free it (its session's QUIT is on its way): the waiter that would get it
   * now is chosen, leaves the ring and is told; the slot goes to it when freed (to the next in turn if it left).
   */
  freeingSoon(release: Release): void {
    this.#freeingSoon.get(release)?.();
  }

  /** The first waiter of the waiting owner holding the fewest slots (the earliest in turn among equals); it moves to the end of the ring. */
  #next(): Next | undefined {
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
    let successor: Next | undefined;
    const release = () => {
      if (released) return;
      released = true;
      const held = this.#held.get(owner)! - 1;
      if (held === 0) this.#held.delete(owner);
      else this.#held.set(owner, held);
      const next = successor && !successor.waiter.gone ? successor : this.#next();
      // The slot passes straight to the next waiter, so a newcomer cannot overtake the ring.
      next?.waiter.grant(this.#releaser(next.owner));
    };
    this.#freeingSoon.set(release, () => {
      if (released || successor) return;
      successor = this.#next();
      successor?.waiter.promised?.();
    });
    return release;
  }
}
