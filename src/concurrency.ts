/** The service's in-process concurrency tools: a fair semaphore, a bounded concurrent map, and calls grouped under load. */

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

/** Maps `items` with at most `limit` calls of `fn` in flight; results keep the input order. */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

interface Grouped<In, Out> {
  input: In;
  resolve: (output: Out) => void;
  reject: (reason: unknown) => void;
}

/**
 * Calls of `run` grouped: one group on its way at a time, and the calls made meanwhile go together in the next
 * (at most `maxGroup` in one). A lone call goes at once; under load each round trip carries every call that waited
 * for it. `run` answers its inputs' outputs in their order; when it fails, every call of its group fails with it.
 */
export class GroupedCalls<In, Out> {
  readonly #run: (inputs: In[]) => Promise<Out[]>;
  readonly #maxGroup: number;
  #waiting: Grouped<In, Out>[] = [];
  #busy = false;

  constructor(run: (inputs: In[]) => Promise<Out[]>, maxGroup: number) {
    this.#run = run;
    this.#maxGroup = maxGroup;
  }

  call(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.#waiting.push({ input, resolve, reject });
      this.#next();
    });
  }

  #next(): void {
    if (this.#busy || this.#waiting.length === 0) return;
    const group = this.#waiting.splice(0, this.#maxGroup);
    this.#busy = true;
    // A `run` that throws before its promise still settles the group, and the calls after it still go.
    new Promise<Out[]>((resolve) => resolve(this.#run(group.map((call) => call.input))))
      .then(
        (outputs) => group.forEach((call, i) => call.resolve(outputs[i]!)),
        (error: unknown) => group.forEach((call) => call.reject(error)),
      )
      .finally(() => {
        this.#busy = false;
        this.#next();
      });
  }
}
