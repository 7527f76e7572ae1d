import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

export interface WorkerProcess {
  /** SIGKILL: the process dies mid-whatever, with no chance to finish, flush or report. */
  kill(): Promise<void>;
  output(): string;
}

const MAIN = path.join(import.meta.dirname, '../../src/main.ts');

/**
 * The production worker (`ROLE=worker node src/main.ts`) as a separate process, so a test can kill
 * it the hard way. Resolves once it polls its task queue.
 */
export async function startWorkerProcess(
  env: Record<string, string>,
  readyTimeoutMs = 120_000,
): Promise<WorkerProcess> {
  const child: ChildProcess = spawn(process.execPath, [MAIN], {
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'info', ...env, ROLE: 'worker' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`worker not ready in ${readyTimeoutMs} ms:\n${lines.join('\n')}`)),
      readyTimeoutMs,
    );
    const onLine = (line: string) => {
      lines.push(line);
      if (lines.length > 200) lines.shift();
      if (line.includes('"worker running"')) {
        clearTimeout(timer);
        resolve();
      }
    };
    createInterface({ input: child.stdout! }).on('line', onLine);
    createInterface({ input: child.stderr! }).on('line', onLine);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`worker exited before it was ready:\n${lines.join('\n')}`));
    });
  });
  return {
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    output: () => lines.join('\n'),
  };
}
