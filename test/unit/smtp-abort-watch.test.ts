import { describe, expect, it } from 'vitest';
import { watchAbort } from '../../src/smtp/abort-watch.ts';

describe('watchAbort', () => {
  it('calls, once, every callback still watching when the signal aborts, and none that stopped', () => {
    const controller = new AbortController();
    const calls: string[] = [];
    watchAbort(controller.signal, () => calls.push('a'));
    const stopB = watchAbort(controller.signal, () => calls.push('b'));
    watchAbort(controller.signal, () => calls.push('c'));
    stopB();
    controller.abort();
    controller.abort();
    expect(calls).toEqual(['a', 'c']);
  });

  it('keeps each signal’s callbacks apart, and a callback added after the abort is never called', () => {
    const first = new AbortController();
    const second = new AbortController();
    const calls: string[] = [];
    watchAbort(first.signal, () => calls.push('first'));
    watchAbort(second.signal, () => calls.push('second'));
    second.abort();
    watchAbort(second.signal, () => calls.push('late'));
    expect(calls).toEqual(['second']);
  });
});
