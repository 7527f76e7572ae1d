import { type ChildProcess, spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';

export interface ServiceProcess {
  /** `http://127.0.0.1:<port>` when the process serves the API. */
  url: string;
  /** SIGKILL: the process dies mid-whatever, with no chance to finish, flush or report. */
  kill(): Promise<void>;
  /** Whether the process is still running. */
  alive(): boolean;
  /** The most memory the process has held (VmHWM, its peak RSS) since it started or `resetPeakRss()`, in bytes. */
  peakRss(): Promise<number>;
  /** The memory the process holds now (VmRSS), in bytes. */
  rss(): Promise<number>;
  /** Starts the peak over from the current RSS (Linux `clear_refs` 5). */
  resetPeakRss(): Promise<void>;
  /** Its process id (what a worker's SMTP leases name it by). */
  pid: number;
  output(): string;
}
export type WorkerProcess = ServiceProcess;

/** A memory figure of /proc/<pid>/status, in bytes. */
async function statusBytes(pid: number, field: 'VmHWM' | 'VmRSS'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1];
  if (!kb) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(kb) * 1024;
}

const MAIN = path.join(import.meta.dirname, '../../src/main.ts');

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface ServiceProcessOptions {
  readyTimeoutMs?: number;
  /**
   * The entry point: the production one by default; another must log `api listening` or `worker running`
   * as src/main.ts does (test/support/enrichment/fast-worker-main.ts).
   */
  main?: string;
}

/**
 * The production entry point (`node src/main.ts`) as a separate process, so a test can see it survive (or
 * kill it the hard way). Resolves once it serves HTTP (`api`), polls its task queue (`worker`), or both (`all`).
 * The tests' one killable process.
 */
export async function startServiceProcess(
  env: Record<string, string>,
  role: 'all' | 'api' | 'worker',
  options: ServiceProcessOptions = {},
): Promise<ServiceProcess> {
  // A port found free may be taken by another test file's process before the child binds it: start again on others.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(env, role, options);
    } catch (error) {
      if (attempt === 3 || !/Address already in use|EADDRINUSE/.test(String(error))) throw error;
    }
  }
}

async function startOnce(
  env: Record<string, string>,
  role: 'all' | 'api' | 'worker',
  { readyTimeoutMs = 120_000, main = MAIN }: ServiceProcessOptions,
): Promise<ServiceProcess> {
  const port = role === 'worker' ? 0 : await freePort();
  // Each process its own worker metrics exporter, so processes of parallel test files never fight over one port.
  const workerMetrics = `127.0.0.1:${await freePort()}`;
  const child: ChildProcess = spawn(process.execPath, [main], {
    // Sign-ups and sign-ins from loopback are counted in the shared database across every test file running at
    // once, as the harness's are not: the limits stay out of the way unless a test sets them.
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      WORKER_METRICS_ADDRESS: workerMetrics,
      SMTP_CANARY_DOMAINS: '',
      SIGNUP_PER_HOUR: '1000000',
      LOGIN_PER_MINUTE: '1000000',
      ...env,
      ROLE: role,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const awaited = new Set([...(role !== 'api' ? ['"worker running"'] : []), ...(role !== 'worker' ? ['"api listening"'] : [])]);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left running behind a failed start: nobody holds it to kill it later.
      child.kill('SIGKILL');
      reject(new Error(`${role} process not ready in ${readyTimeoutMs} ms:\n${lines.join('\n')}`));
    }, readyTimeoutMs);
    const onLine = (line: string) => {
      lines.push(line);
      // A whole test's log, even at debug level (tests search it for leaked secrets), yet bounded for a long job.
      if (lines.length > 20_000) lines.shift();
      for (const marker of awaited) if (line.includes(marker)) awaited.delete(marker);
      if (awaited.size === 0) {
        clearTimeout(timer);
        resolve();
      }
    };
    createInterface({ input: child.stdout! }).on('line', onLine);
    createInterface({ input: child.stderr! }).on('line', onLine);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${role} process exited before it was ready:\n${lines.join('\n')}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    alive: () => child.exitCode === null && child.signalCode === null,
    peakRss: () => statusBytes(child.pid!, 'VmHWM'),
    rss: () => statusBytes(child.pid!, 'VmRSS'),
    resetPeakRss: () => writeFile(`/proc/${child.pid}/clear_refs`, '5'),
    pid: child.pid ?? 0,
    output: () => lines.join('\n'),
  };
}

export const startWorkerProcess = (env: Record<string, string>, options?: ServiceProcessOptions) =>
  startServiceProcess(env, 'worker', options);
