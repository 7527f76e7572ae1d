/**
 * The API process alone, as deployed (`ROLE=api`, its V8 flags), on a scratch database and a scratch Temporal
 * server (jobs are started, nobody runs them), rate limits out of the way; and an organization signed up on it.
 */
import { randomUUID } from 'node:crypto';
import { createScratchDatabase, LOCAL_ADMIN_URL, startScratchTemporal } from '../../test/support/scratch.ts';
import { startServiceProcess } from '../../test/support/worker-process.ts';
import { API_NODE_FLAGS } from './api-flags.ts';

export const BENCH_ORIGIN = 'http://bench.local';

/** Starts it; each resource's cleanup goes onto `cleanups`, to be run in order. `env` adds to or overrides its environment. */
export async function startApiAlone(name: string, cleanups: Array<() => Promise<unknown>>, env: Record<string, string> = {}) {
  const db = await createScratchDatabase(process.env.TEST_DATABASE_URL ?? LOCAL_ADMIN_URL, `bench_${name}`);
  cleanups.push(db.drop);
  const temporal = await startScratchTemporal();
  cleanups.unshift(temporal.teardown);
  const service = await startServiceProcess(
    {
      DATABASE_URL: db.url,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: `${name}-${randomUUID()}`,
      APP_ORIGINS: BENCH_ORIGIN,
      RATE_LIMIT_BURST: '1000000000',
      RATE_LIMIT_PER_MINUTE: '1000000000',
      NODE_OPTIONS: API_NODE_FLAGS.join(' '),
      ...env,
    },
    'api',
  );
  cleanups.unshift(service.kill);
  return { db, service };
}

/** A new organization's owner signed in: the session cookie (`sid=…`). */
export async function signUp(url: string, name: string): Promise<string> {
  const res = await fetch(`${url}/api/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `${name.toLowerCase()}-${randomUUID()}@example.test`, password: 'correct horse battery', organizationName: name }),
  });
  return res.headers.getSetCookie()[0]!.split(';')[0]!;
}
