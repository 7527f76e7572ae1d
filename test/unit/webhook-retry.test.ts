import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { waitAfter } from '../../src/domain/webhook-retry.ts';
import { retrySchedule } from '../../src/webhooks/send.ts';

describe('webhook retry schedule (CONTRACT §9.3)', () => {
  it('with the default configuration: first retry within 15 s, each wait at most 3× the one before and at most 1 h, for at least 24 h', () => {
    const schedule = retrySchedule(loadConfig({ NODE_ENV: 'test' }));
    const waits: number[] = [];
    let elapsed = 0;
    for (let attempt = 1; ; attempt++) {
      const wait = waitAfter(schedule, attempt, elapsed);
      if (wait === null) break;
      waits.push(wait);
      elapsed += wait;
    }
    expect(waits[0]).toBeLessThanOrEqual(15_000);
    waits.slice(1).forEach((wait, i) => expect(wait).toBeLessThanOrEqual(3 * waits[i]!));
    expect(Math.max(...waits)).toBe(3_600_000);
    expect(elapsed).toBeGreaterThanOrEqual(24 * 3_600_000);
    // The last attempt is the first one made at or after 24 h: no more than one wait beyond it.
    expect(elapsed - waits.at(-1)!).toBeLessThan(24 * 3_600_000);
  });

  it('refuses a production configuration that would give up before 24 h, and waits beyond the contract', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', SECRETS_KEY: Buffer.alloc(32).toString('base64'), WEBHOOK_RETRY_FOR: '2h' })).toThrow(/WEBHOOK_RETRY_FOR/);
    expect(() => loadConfig({ NODE_ENV: 'test', WEBHOOK_RETRY_FIRST: '20s' })).toThrow(/WEBHOOK_RETRY_FIRST/);
    expect(() => loadConfig({ NODE_ENV: 'test', WEBHOOK_TIMEOUT: '30s' })).toThrow(/WEBHOOK_TIMEOUT/);
  });
});
