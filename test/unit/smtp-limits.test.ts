import { describe, expect, it } from 'vitest';
import { FairSlots } from '../../src/smtp/fair-slots.ts';
import { GroupedCalls, Semaphore } from '../../src/concurrency.ts';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('Semaphore', () => {
  it('grants up to its capacity and queues the rest in order', async () => {
    const semaphore = new Semaphore(2);
    const first = await semaphore.acquire();
    await semaphore.acquire();
    const order: number[] = [];
    const third = semaphore.acquire().then((release) => (order.push(3), release));
    const fourth = semaphore.acquire().then((release) => (order.push(4), release));
    await tick();
    expect(order).toEqual([]);
    expect(semaphore.waiting).toBe(2);
    first();
    first(); // a second call must not free a second slot
    await tick();
    expect(order).toEqual([3]);
    (await third)();
    await fourth;
    expect(order).toEqual([3, 4]);
    expect(semaphore.inUse).toBe(2);
  });

  it('drops a waiter whose signal aborts', async () => {
    const semaphore = new Semaphore(1);
    const release = await semaphore.acquire();
    const controller = new AbortController();
    const waiting = semaphore.acquire(controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    expect(semaphore.waiting).toBe(0);
    release();
    expect(semaphore.inUse).toBe(0);
  });

  it('refuses a non-positive capacity', () => {
    expect(() => new Semaphore(0)).toThrow(RangeError);
  });
});

describe('GroupedCalls', () => {
  it('sends a lone call at once and the calls made while it is on its way together next, each answered its own', async () => {
    const groups: number[][] = [];
    const answers: Array<(outputs: string[]) => void> = [];
    const calls = new GroupedCalls<number, string>(
      (inputs) => (groups.push(inputs), new Promise<string[]>((resolve) => answers.push(resolve))),
      3,
    );
    const results = [1, 2, 3, 4, 5].map((n) => calls.call(n));
    expect(groups).toEqual([[1]]);
    answers[0]!(['a1']);
    await tick();
    expect(groups).toEqual([[1], [2, 3, 4]]);
    answers[1]!(['a2', 'a3', 'a4']);
    await tick();
    expect(groups).toEqual([[1], [2, 3, 4], [5]]);
    answers[2]!(['a5']);
    expect(await Promise.all(results)).toEqual(['a1', 'a2', 'a3', 'a4', 'a5']);
  });

  it('fails every call of a group that failed, and goes on with the next group', async () => {
    let groups = 0;
    const calls = new GroupedCalls<number, number>((inputs) => {
      groups += 1;
      // Thrown before any promise: the group must fail all the same, and the next must still go.
      if (groups === 1) throw new Error('database down');
      return tick().then(() => inputs.map((n) => n * 10));
    }, 10);
    const first = calls.call(1);
    const waiting = [calls.call(2), calls.call(3)];
    await expect(first).rejects.toThrow('database down');
    expect(await Promise.all(waiting)).toEqual([20, 30]);
  });
});

describe('FairSlots', () => {
  it('hands freed slots to waiting owners in turn, FIFO within an owner', async () => {
    const slots = new FairSlots(1);
    const first = await slots.acquire('big');
    const order: string[] = [];
    const wait = (owner: string, tag: string) =>
      slots.acquire(owner).then((release) => {
        order.push(tag);
        release();
      });
    const pending = [wait('big', 'big1'), wait('big', 'big2'), wait('big', 'big3'), wait('small', 'small1')];
    expect(slots.othersWaiting('big')).toBe(true);
    expect(slots.othersWaiting('nobody')).toBe(true);
    first();
    await Promise.all(pending);
    // big1 was first in line; then small's turn comes before big's second and third.
    expect(order).toEqual(['big1', 'small1', 'big2', 'big3']);
    expect(slots.inUse).toBe(0);
    expect(slots.othersWaiting('big')).toBe(false);
  });

  it('hands freed slots to the waiting owner holding the fewest, so a small job catches up at once', async () => {
    const slots = new FairSlots(6);
    const bigHeld = await Promise.all(Array.from({ length: 6 }, () => slots.acquire('big')));
    const order: string[] = [];
    const held: Array<() => void> = [];
    const wait = (owner: string, tag: string) =>
      slots.acquire(owner).then((release) => {
        order.push(tag);
        held.push(release);
      });
    // big asked first: in turn order it comes before small.
    const pending = [wait('big', 'big7'), wait('small', 'small1'), wait('small', 'small2'), wait('big', 'big8')];
    bigHeld[0]!();
    await tick();
    bigHeld[1]!();
    await tick();
    // Both freed slots went to small, which held fewer, although big was first in turn.
    expect(order).toEqual(['small1', 'small2']);
    bigHeld[2]!();
    await tick();
    bigHeld[3]!();
    await Promise.all(pending);
    expect(order).toEqual(['small1', 'small2', 'big7', 'big8']);
    for (const release of [...held, ...bigHeld]) release();
    expect(slots.inUse).toBe(0);
  });

  it('between owners holding as many, hands freed slots in turn', async () => {
    const slots = new FairSlots(2);
    const a = await slots.acquire('a');
    const b = await slots.acquire('b');
    const order: string[] = [];
    const pending = ['a', 'b', 'a', 'b'].map((owner, i) =>
      slots.acquire(owner).then((release) => {
        order.push(`${owner}${i}`);
        setImmediate(release);
      }),
    );
    a();
    b();
    await Promise.all(pending);
    await tick();
    expect(order).toEqual(['a0', 'b1', 'a2', 'b3']);
    expect(slots.inUse).toBe(0);
  });

  it('promises a slot about to be freed to the waiter next in turn, tells it once, and hands it the slot when freed', async () => {
    const slots = new FairSlots(2);
    const big = await slots.acquire('big');
    const other = await slots.acquire('big');
    const told: string[] = [];
    const granted: string[] = [];
    const wait = (owner: string) =>
      slots.acquire(owner, { promised: () => told.push(owner) }).then((release) => {
        granted.push(owner);
        return release;
      });
    const [small, later] = [wait('small'), wait('later')];
    slots.freeingSoon(big);
    slots.freeingSoon(big);
    expect(told).toEqual(['small']);
    // Promised, it has left the ring: the other slot freed first goes to the next in turn.
    expect(slots.waiting).toBe(1);
    other();
    await tick();
    expect(granted).toEqual(['later']);
    big();
    await tick();
    expect(granted).toEqual(['later', 'small']);
    (await small)();
    (await later)();
    expect(slots.inUse).toBe(0);
  });

  it('gives a promised slot to the next in turn when its waiter left meanwhile', async () => {
    const slots = new FairSlots(1);
    const held = await slots.acquire('a');
    const controller = new AbortController();
    const gone = slots.acquire('b', { signal: controller.signal, promised: () => controller.abort(new Error('not needed')) });
    const next = slots.acquire('c');
    slots.freeingSoon(held);
    await expect(gone).rejects.toThrow('not needed');
    held();
    (await next)();
    expect(slots.inUse).toBe(0);
  });

  it('lets a waiter whose signal aborts leave the ring', async () => {
    const slots = new FairSlots(1);
    const held = await slots.acquire('a');
    const controller = new AbortController();
    const gone = slots.acquire('b', { signal: controller.signal });
    controller.abort(new Error('cancelled'));
    await expect(gone).rejects.toThrow('cancelled');
    expect(slots.waiting).toBe(0);
    held();
    expect(slots.inUse).toBe(0);
  });
});
