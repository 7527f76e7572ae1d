import { describe, expect, it } from 'vitest';
import { anotherSessionPays, shareOf } from '../../src/smtp/session-plan.ts';

describe('anotherSessionPays', () => {
  // L = 20 ms a reply, a session opens in 3 L (connect, greeting, EHLO).
  const L = 20;
  const plan = (waiting: number, sessions: number, perAddressMs = L) => anotherSessionPays({ waiting, sessions, perAddressMs, openMs: 3 * L });

  it('a host answering one reply after another: a second session pays once more than its opening waits', () => {
    // 50 addresses at L each on one session: 50 L; on two, (50 L + 3 L) / 2 = 26.5 L.
    expect(plan(50, 1)).toBe(true);
    expect(plan(4, 1)).toBe(true);
    // Three addresses take 3 L, as long as opening another: no sooner on two.
    expect(plan(3, 1)).toBe(false);
    expect(plan(0, 1)).toBe(false);
  });

  it('each further session must pay for itself against all those at work', () => {
    expect(plan(50, 2)).toBe(true);
    expect(plan(6, 2)).toBe(false);
    expect(plan(7, 2)).toBe(true);
  });

  it('a pipelining host answering a window at once (a reply costs a fraction of L): one session unless much waits', () => {
    const pipelined = (waiting: number) => plan(waiting, 1, L / 50);
    expect(pipelined(50)).toBe(false);
    expect(pipelined(150)).toBe(false);
    expect(pipelined(151)).toBe(true);
  });

  it('agrees with the finishing times it stands for', () => {
    for (const [waiting, sessions, a, open] of [
      [50, 1, 20, 60],
      [10, 3, 5, 40],
      [200, 2, 1, 90],
      [7, 1, 9, 70],
    ] as const) {
      const now = (waiting * a) / sessions;
      const withOneMore = (waiting * a + open) / (sessions + 1);
      expect(anotherSessionPays({ waiting, sessions, perAddressMs: a, openMs: open })).toBe(withOneMore < now);
    }
  });
});

describe('shareOf', () => {
  it('splits what waits evenly among the sessions open or opening, within the transaction size', () => {
    expect(shareOf(50, 1, 100)).toBe(50);
    expect(shareOf(50, 2, 100)).toBe(25);
    expect(shareOf(51, 2, 100)).toBe(26);
    expect(shareOf(5000, 2, 100)).toBe(100);
    expect(shareOf(1, 2, 100)).toBe(1);
    expect(shareOf(0, 0, 100)).toBe(1);
  });
});
