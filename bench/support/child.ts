// A bench's helper process (an SMTP fleet, an API process): forked with the bench's output, asked questions over
// its IPC channel, stopped politely and killed if it does not exit within 5 s.
import { type ChildProcess, fork, type ForkOptions } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface BenchChild {
  process: ChildProcess;
  /** Sends `message` (none: only waits) and resolves with the child's next message. */
  ask: <T>(message: string | null) => Promise<T>;
  stop: () => Promise<void>;
}

/** Forks `script` (relative to bench/). */
export function forkChild(script: string, options: ForkOptions = {}): BenchChild {
  const child = fork(path.join(import.meta.dirname, '..', script), [], { stdio: 'inherit', ...options });
  return {
    process: child,
    ask: async <T>(message: string | null): Promise<T> => {
      const answer = once(child, 'message') as Promise<[T]>;
      if (message) child.send(message);
      return (await answer)[0];
    },
    stop: async () => {
      child.send('stop');
      await Promise.race([once(child, 'exit'), sleep(5_000).then(() => child.kill())]);
    },
  };
}
