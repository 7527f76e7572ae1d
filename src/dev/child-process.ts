import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
}

export interface ManagedChild {
  readonly name: string;
  /** Settles once, when the process has exited or failed to start. */
  readonly exited: Promise<ExitStatus>;
  isRunning(): boolean;
  /** Sends the child's stop signal, waits up to its grace period, then kills it. */
  stop(): Promise<ExitStatus>;
  /** The last lines it printed, for error messages. */
  recentOutput(): string;
}

export interface StartChildOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  uid?: number;
  gid?: number;
  /** `inherit` hands the terminal to the child; a function receives each output line. */
  output: 'inherit' | ((line: string) => void);
  stopSignal: NodeJS.Signals;
  stopGraceMs: number;
}

const RECENT_LINES = 30;
const running = new Set<ManagedChild>();

// Last resort when the runner dies without its orderly shutdown: children live in their own process
// groups, so nobody else would stop them.
process.once('exit', () => {
  for (const child of running) child.stop().catch(() => undefined);
});

export function describeExit(status: ExitStatus): string {
  if (status.error) return status.error.message;
  if (status.signal) return `killed by ${status.signal}`;
  return `exit code ${status.code ?? 'unknown'}`;
}

export function startChild(
  name: string,
  command: string,
  args: string[],
  options: StartChildOptions,
): ManagedChild {
  const child = spawn(command, args, {
    env: options.env ?? process.env,
    cwd: options.cwd,
    uid: options.uid,
    gid: options.gid,
    // Own process group: a Ctrl-C in the terminal reaches only the runner, which then stops the children in
    // dependency order instead of all at once.
    detached: process.platform !== 'win32',
    stdio: options.output === 'inherit' ? ['ignore', 'inherit', 'inherit'] : ['ignore', 'pipe', 'pipe'],
  });

  const recent: string[] = [];
  const onLine = options.output;
  if (onLine !== 'inherit') {
    for (const stream of [child.stdout, child.stderr]) {
      if (!stream) continue;
      createInterface({ input: stream }).on('line', (line) => {
        recent.push(line);
        if (recent.length > RECENT_LINES) recent.shift();
        onLine(line);
      });
    }
  }

  let done = false;
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('error', (error) => {
      // 'error' without 'exit' means the process never started.
      if (child.pid === undefined) resolve({ code: null, signal: null, error });
    });
    child.once('exit', (code, signal) => resolve({ code, signal }));
  }).then((status) => {
    done = true;
    running.delete(handle);
    return status;
  });

  const handle: ManagedChild = {
    name,
    exited,
    isRunning: () => !done,
    async stop() {
      if (done) return exited;
      child.kill(options.stopSignal);
      const inTime = await Promise.race([exited, sleep(options.stopGraceMs, null, { ref: false })]);
      if (inTime) return inTime;
      child.kill('SIGKILL');
      return exited;
    },
    recentOutput: () => recent.join('\n'),
  };
  running.add(handle);
  return handle;
}
