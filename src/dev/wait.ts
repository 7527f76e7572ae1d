import { setTimeout as sleep } from 'node:timers/promises';
import type { ManagedChild } from './child-process.ts';
import { ServiceExitedError, StartupTimeoutError } from './errors.ts';

export interface WaitOptions {
  timeoutMs: number;
  signal: AbortSignal;
  /** The process being waited on: its exit ends the wait at once, with its last output. */
  child?: ManagedChild;
  intervalMs?: number;
}

/** Polls `probe` until it answers true. The probe reports "not yet" by returning false, not by throwing. */
export async function waitFor(what: string, probe: () => Promise<boolean>, opts: WaitOptions): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  for (;;) {
    opts.signal.throwIfAborted();
    if (opts.child && !opts.child.isRunning()) {
      throw new ServiceExitedError(opts.child.name, await opts.child.exited, opts.child.recentOutput());
    }
    if (await probe()) return;
    if (Date.now() > deadline) throw new StartupTimeoutError(what, opts.timeoutMs);
    await sleep(opts.intervalMs ?? 250, undefined, { signal: opts.signal });
  }
}
