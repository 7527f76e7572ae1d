import { describe, expect, it } from 'vitest';
import { HostQueue, type QueuedItem } from '../../src/smtp/host-queue.ts';

const item = (address: string, owner = 'job', probe = false): QueuedItem => ({ address, owner, probe, done: false, queued: false });
const addresses = (items: QueuedItem[]) => items.map((i) => i.address);

describe('HostQueue', () => {
  it('takes the first owner’s catch-all probes first, alone, then its addresses, then the other owners’ in turn', () => {
    const queue = new HostQueue<QueuedItem>();
    for (const i of [item('a1', 'big'), item('probe-a', 'big', true), item('a2', 'big'), item('s1', 'small'), item('probe-s', 'small', true)])
      queue.push(i);
    expect([queue.waiting, queue.waitingAddresses]).toEqual([5, 3]);
    expect(addresses(queue.take(10))).toEqual(['probe-a', 'probe-s']);
    expect(addresses(queue.take(2))).toEqual(['a1', 'a2']);
    expect(addresses(queue.take(10))).toEqual(['s1']);
    expect([queue.waiting, queue.waitingAddresses]).toEqual([0, 0]);
    expect(queue.take(10)).toEqual([]);
  });

  it('serves the owner with the fewest waiting first when asked to, each owner’s order kept', () => {
    const queue = new HostQueue<QueuedItem>();
    for (let k = 0; k < 5; k += 1) queue.push(item(`big${k}`, 'big'));
    queue.push(item('small0', 'small'));
    expect(queue.leastQueuedOwner()).toBe('small');
    queue.putFirst('small');
    expect(addresses(queue.take(3))).toEqual(['small0', 'big0', 'big1']);
    expect(queue.leastQueuedOwner()).toBe('big');
  });

  it('puts unanswered items back in front in their order, and skips what was answered meanwhile', () => {
    const queue = new HostQueue<QueuedItem>();
    const items = Array.from({ length: 6 }, (_, k) => item(`x${k}`));
    for (const i of items) queue.push(i);
    const batch = queue.take(4);
    queue.requeue(batch.slice(2));
    expect(queue.waiting).toBe(4);
    items[3]!.done = true;
    queue.unqueue(items[3]!);
    items[4]!.done = true;
    queue.unqueue(items[4]!);
    expect(queue.waiting).toBe(2);
    expect(addresses(queue.take(10))).toEqual(['x2', 'x5']);
  });

  it('serves requeued items next, even when their owner had no other item waiting', () => {
    const queue = new HostQueue<QueuedItem>();
    for (const i of [item('a0', 'a'), item('a1', 'a'), item('b0', 'b')]) queue.push(i);
    const batch = queue.take(2);
    expect(addresses(batch)).toEqual(['a0', 'a1']);
    queue.requeue(batch);
    expect(addresses(queue.take(3))).toEqual(['a0', 'a1', 'b0']);
  });

  it('finds an owner’s waiting addresses to withdraw, and drains everything at once', () => {
    const queue = new HostQueue<QueuedItem>();
    for (const i of [item('a@c.test', 'one'), item('b@c.test', 'one'), item('a@c.test', 'two'), item('p@c.test', 'one', true)]) queue.push(i);
    expect(addresses(queue.find('one', new Set(['a@c.test', 'p@c.test'])))).toEqual(['p@c.test', 'a@c.test']);
    expect(queue.drain()).toHaveLength(4);
    expect([queue.waiting, queue.waitingAddresses]).toEqual([0, 0]);
    expect(queue.leastQueuedOwner()).toBeUndefined();
  });

  it('keeps its order through many takes and requeues (the lane’s head moves, and is compacted)', () => {
    const queue = new HostQueue<QueuedItem>();
    for (let k = 0; k < 5_000; k += 1) queue.push(item(`x${k}`));
    const seen: string[] = [];
    for (;;) {
      const batch = queue.take(100);
      if (batch.length === 0) break;
      // Every other transaction answers half and gives the rest back.
      const answered = seen.length % 200 === 0 ? batch.slice(0, 50) : batch;
      queue.requeue(batch.slice(answered.length));
      seen.push(...addresses(answered));
    }
    expect(seen).toEqual(Array.from({ length: 5_000 }, (_, k) => `x${k}`));
  });
});
