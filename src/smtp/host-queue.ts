/** What a host's queue needs of an item; the channel adds how it is answered. */
export interface QueuedItem {
  address: string;
  owner: string;
  /** The catch-all probe: asked before any real address of its transaction, which it may start. */
  probe: boolean;
  /** Answered or abandoned: skipped wherever it still sits. */
  done: boolean;
  /** Waiting in the queue and counted in its totals. */
  queued: boolean;
}

/** Items in order with a moving head, so taking from the front and putting back there cost what they move. */
class Lane<T extends QueuedItem> {
  #items: T[] = [];
  #head = 0;

  push(item: T): void {
    this.#items.push(item);
  }

  /** Puts `items` back in front, in their order (they were taken from there, so the room is usually free). */
  unshift(items: readonly T[]): void {
    if (items.length <= this.#head) {
      this.#head -= items.length;
      for (let i = 0; i < items.length; i += 1) this.#items[this.#head + i] = items[i]!;
    } else {
      this.#items = [...items, ...this.#items.slice(this.#head)];
      this.#head = 0;
    }
  }

  /** The first live item, dropping done ones on the way. */
  peek(): T | undefined {
    while (this.#head < this.#items.length && this.#items[this.#head]!.done) this.#head += 1;
    this.#compact();
    return this.#items[this.#head];
  }

  shift(): T | undefined {
    const item = this.peek();
    if (item) this.#head += 1;
    return item;
  }

  get isEmpty(): boolean {
    return this.peek() === undefined;
  }

  /** Live items, in order (a pass over the lane: for rare operations only). */
  live(): T[] {
    return this.#items.slice(this.#head).filter((item) => !item.done);
  }

  #compact(): void {
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
  }
}

/** One owner's items: catch-all probes and real addresses apart, each in arrival order. */
interface OwnerQueue<T extends QueuedItem> {
  probes: Lane<T>;
  addresses: Lane<T>;
  waiting: number;
}

/**
 * The addresses waiting at one MX host, per owner (a job), owners in turn order. Every operation a session makes
 * per transaction or per address costs what it moves, not a pass over the queue: at a host shared by a large
 * list's domains (Google, Microsoft) hundreds of thousands of addresses can wait.
 */
export class HostQueue<T extends QueuedItem> {
  readonly #owners = new Map<string, OwnerQueue<T>>();
  /** Owners with items waiting, the one served first at the front. */
  #order: string[] = [];
  #waiting = 0;
  #waitingAddresses = 0;

  /** Items waiting. */
  get waiting(): number {
    return this.#waiting;
  }

  /** Real addresses waiting (catch-all probes left out). */
  get waitingAddresses(): number {
    return this.#waitingAddresses;
  }

  push(item: T): void {
    if (item.done) return;
    this.#lane(item).push(item);
    this.#count(item);
  }

  /**
   * Puts unanswered items back in front, in their order, for the next session: in front of their owners' queues,
   * and their owners first in turn (an owner whose items were all taken had left the turn order).
   */
  requeue(items: readonly T[]): void {
    const byLane = new Map<Lane<T>, T[]>();
    for (const item of items) {
      if (item.done) continue;
      const lane = this.#lane(item);
      const back = byLane.get(lane);
      if (back) back.push(item);
      else byLane.set(lane, [item]);
    }
    for (const [lane, back] of byLane) {
      lane.unshift(back);
      for (const item of back) this.#count(item);
    }
    const owners = [...new Set(items.filter((item) => item.queued).map((item) => item.owner))];
    for (const owner of owners.reverse()) this.putFirst(owner);
  }

  /** The item leaves the counts (answered or abandoned while waiting); it is skipped where it sits. */
  unqueue(item: T): void {
    if (!item.queued) return;
    item.queued = false;
    this.#waiting -= 1;
    if (!item.probe) this.#waitingAddresses -= 1;
    const queue = this.#owners.get(item.owner);
    if (queue && --queue.waiting === 0) {
      // Only done items are left in its lanes.
      this.#owners.delete(item.owner);
      this.#order = this.#order.filter((owner) => owner !== item.owner);
    }
  }

  /**
   * The next transaction's items: up to `size` catch-all probes when the first owner has any waiting (their
   * verdicts let its domains' findings stand), else as many real addresses; the first owner's first, then the
   * others' in turn.
   */
  take(size: number): T[] {
    const front = this.#order[0];
    if (front === undefined) return [];
    const probing = !this.#owners.get(front)!.probes.isEmpty;
    const batch: T[] = [];
    for (const owner of [...this.#order]) {
      const queue = this.#owners.get(owner)!;
      const lane = probing ? queue.probes : queue.addresses;
      while (batch.length < size) {
        const item = lane.shift();
        if (!item) break;
        this.unqueue(item);
        batch.push(item);
      }
      if (batch.length === size) break;
    }
    return batch;
  }

  /** Takes every waiting item out, for answering them all at once. */
  drain(): T[] {
    const items = this.#order.flatMap((owner) => this.#waitingOf(owner));
    for (const item of items) this.unqueue(item);
    return items;
  }

  /** `owner`'s waiting items whose address is in `addresses` (a pass over that owner's queue). */
  find(owner: string, addresses: ReadonlySet<string>): T[] {
    return this.#waitingOf(owner).filter((item) => addresses.has(item.address));
  }

  /**
   * The owner with the fewest items waiting here: a session is asked for in its name, so a small job on a host
   * shared with a large one gets the small job's turn in the slot ring.
   */
  leastQueuedOwner(): string | undefined {
    let best: string | undefined;
    for (const owner of this.#order)
      if (best === undefined || this.#owners.get(owner)!.waiting < this.#owners.get(best)!.waiting) best = owner;
    return best;
  }

  /** Owners with items waiting, in turn order. */
  owners(): readonly string[] {
    return this.#order;
  }

  /** `owner` is served first from now on (its items keep their order). */
  putFirst(owner: string): void {
    if (this.#order[0] === owner || !this.#owners.has(owner)) return;
    this.#order = [owner, ...this.#order.filter((o) => o !== owner)];
  }

  /** `owner`'s waiting items, probes first (a pass over its queue). */
  #waitingOf(owner: string): T[] {
    const queue = this.#owners.get(owner);
    return queue ? [...queue.probes.live(), ...queue.addresses.live()] : [];
  }

  #lane(item: T): Lane<T> {
    let queue = this.#owners.get(item.owner);
    if (!queue) {
      queue = { probes: new Lane(), addresses: new Lane(), waiting: 0 };
      this.#owners.set(item.owner, queue);
      this.#order.push(item.owner);
    }
    return item.probe ? queue.probes : queue.addresses;
  }

  #count(item: T): void {
    item.queued = true;
    this.#waiting += 1;
    if (!item.probe) this.#waitingAddresses += 1;
    this.#owners.get(item.owner)!.waiting += 1;
  }
}
