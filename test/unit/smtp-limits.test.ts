import { describe, expect, it } from 'vitest';
import { ConnectionLimits, KeyedSemaphore, Semaphore } from '../../src/smtp/limits.ts';

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

describe('KeyedSemaphore', () => {
  it('bounds each key separately', async () => {
    const keyed = new KeyedSemaphore(1);
    const a = await keyed.acquire('a');
    const b = await keyed.acquire('b');
    let secondA = false;
    const pending = keyed.acquire('a').then((release) => ((secondA = true), release));
    await tick();
    expect(secondA).toBe(false);
    a();
    (await pending)();
    expect(secondA).toBe(true);
    b();
  });
});

describe('ConnectionLimits', () => {
  it('holds both the per-host and the total bound', async () => {
    const limits = new ConnectionLimits({ perHost: 2, total: 3 });
    const held = await Promise.all([limits.acquire('mx1'), limits.acquire('mx1'), limits.acquire('mx2')]);
    expect(limits.activeConnections).toBe(3);
    let granted = '';
    const third = limits.acquire('MX1').then((release) => ((granted += 'mx1'), release));
    const other = limits.acquire('mx3').then((release) => ((granted += 'mx3'), release));
    await tick();
    expect(granted).toBe('');
    held[2]?.(); // frees a total slot, but mx1 is still full: mx3 gets it
    await tick();
    expect(granted).toBe('mx3');
    held[0]?.();
    (await third)();
    (await other)();
    held[1]?.();
    expect(limits.activeConnections).toBe(0);
  });
});
