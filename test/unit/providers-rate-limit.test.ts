import { describe, expect, it } from 'vitest';
import { TokenBucket } from '../../src/providers/rate-limit.ts';

describe('TokenBucket', () => {
  it('lets a burst through at once, then spaces requests by the rate', async () => {
    const bucket = new TokenBucket({ perSecond: 20, burst: 3 });
    const started = Date.now();
    const times: number[] = [];
    for (let i = 0; i < 6; i++) {
      await bucket.take();
      times.push(Date.now() - started);
    }
    expect(times.slice(0, 3).every((t) => t < 30)).toBe(true);
    // Three more at 50 ms intervals.
    expect(times[5]).toBeGreaterThanOrEqual(140);
  });

  it('serves concurrent callers in arrival order', async () => {
    const bucket = new TokenBucket({ perSecond: 50, burst: 1 });
    const order: number[] = [];
    await Promise.all([0, 1, 2, 3].map((i) => bucket.take().then(() => order.push(i))));
    expect(order).toEqual([0, 1, 2, 3]);
  });

  it('holds every caller during a pause', async () => {
    const bucket = new TokenBucket({ perSecond: 1000, burst: 10 });
    bucket.pause(120);
    const started = Date.now();
    await Promise.all([bucket.take(), bucket.take()]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
  });

  it('rejects nonsensical settings', () => {
    expect(() => new TokenBucket({ perSecond: 0 })).toThrow(RangeError);
    expect(() => new TokenBucket({ perSecond: 1, burst: 0 })).toThrow(RangeError);
  });
});
