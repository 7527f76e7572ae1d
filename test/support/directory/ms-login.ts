import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { DirectoryAnswer } from '../../../src/directory/microsoft.ts';
import { type MsLoginServer, type MsTenant, startMsLoginServer } from '../../../src/sandbox/providers/ms-login.ts';

export type { MsLoginServer } from '../../../src/sandbox/providers/ms-login.ts';

/**
 * The stand-in of Microsoft's sign-in host with the given tenants, and the variables that point the service at it
 * (pass `env` to startHarness or a worker process). The rate defaults high so a test waits on its own pace only.
 */
export async function startMsLogin(
  tenants: Record<string, MsTenant>,
  options: { rate?: number } = {},
): Promise<{ server: MsLoginServer; env: { MS_DIRECTORY_CHECK: 'on'; MS_LOGIN_BASE_URL: string; MS_DIRECTORY_RATE: string } }> {
  const server = await startMsLoginServer({ tenants });
  return { server, env: { MS_DIRECTORY_CHECK: 'on', MS_LOGIN_BASE_URL: server.url, MS_DIRECTORY_RATE: String(options.rate ?? 50) } };
}

/** Most requests that arrived within any `windowMs` (both ends included), by the stand-in's own clock. */
export function busiestWindow(arrivals: readonly number[], windowMs = 1_000): number {
  const sorted = [...arrivals].sort((a, b) => a - b);
  let most = 0;
  let first = 0;
  for (let last = 0; last < sorted.length; last++) {
    while (sorted[last]! - sorted[first]! > windowMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

export interface LookupProcess {
  /** Starts its lookups. */
  go(): void;
  /** Its answers by address, once it is done. */
  answers: Promise<Record<string, DirectoryAnswer['kind']>>;
}

const LOOKUPS_MAIN = path.join(import.meta.dirname, 'lookups-main.ts');

/** A separate Node process with its own MicrosoftDirectory on `databaseUrl`; resolves once it is ready to go. */
export async function startLookupProcess(env: {
  databaseUrl: string;
  baseUrl: string;
  rate: number;
  addresses: readonly string[];
  /** Looked up before it says it is ready. */
  warmUp: string;
}): Promise<LookupProcess> {
  const child = spawn(process.execPath, [LOOKUPS_MAIN], {
    env: { ...process.env, DATABASE_URL: env.databaseUrl, MS_LOGIN_BASE_URL: env.baseUrl, MS_DIRECTORY_RATE: String(env.rate), ADDRESSES: env.addresses.join(','), WARM_UP: env.warmUp },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit');
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<string> => {
    const line = await lines.next();
    if (line.done) throw new Error(`lookup process ended early: ${stderr}`);
    return line.value;
  };
  if ((await next()) !== 'ready') throw new Error(`lookup process not ready: ${stderr}`);
  const answers = (async () => {
    const result = JSON.parse(await next()) as Record<string, DirectoryAnswer['kind']>;
    await exited;
    return result;
  })();
  // Its failure is the answers' rejection, awaited by the test.
  answers.catch(() => undefined);
  return { go: () => child.stdin.end('go\n'), answers };
}
