import { fork } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { inject } from 'vitest';

export interface ApiProcess {
  url: string;
  pid: number;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  stop(): Promise<void>;
}

/** The real API (app, pool, key cache, listener, rate limiter) in an OS process of its own, on loopback. */
export async function startApiProcess(env: Record<string, string> = {}): Promise<ApiProcess> {
  const script = path.join(import.meta.dirname, '../../bench/support/api-process.ts');
  const child = fork(script, [], {
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'error', DATABASE_URL: inject('databaseUrl'), ...env },
    stdio: 'inherit',
  });
  const [message] = (await once(child, 'message')) as [{ port: number }];
  const url = `http://127.0.0.1:${message.port}`;
  return {
    url,
    pid: child.pid!,
    get: (p, headers = {}) => fetch(`${url}${p}`, { headers }),
    async stop() {
      const exited = once(child, 'exit');
      child.send('stop');
      await exited;
    },
  };
}
