/**
 * `npm run bench -- job-poll`: what one look at a running verification job costs, as a dashboard or an integration
 * polling it pays every second or two (and the verification bench every 20 ms, beside the job it measures).
 * `GET /api/verification/jobs/{id}` with a session cookie, one request at a time, against the API process run as
 * deployed (`ROLE=api`, its V8 flags) on a scratch database; printed per request: the time, the API process's CPU
 * and PostgreSQL's. The floor: the same statements (the session, the job's row, its aggregates) sent one after the
 * other by a bare `pg` client, no HTTP, routing, validation or mapping. BENCH_POLLS: requests per round (3 rounds).
 */
import pg from 'pg';
import { sha256Hex } from '../src/auth/tokens.ts';
import { JOB_AGGREGATES_SQL } from '../src/verification/repository.ts';
import { BENCH_ORIGIN, signUp, startApiAlone } from './support/api-alone.ts';
import { cpuSample } from './support/cpu-use.ts';

const POLLS = Number(process.env.BENCH_POLLS ?? 2000);
const ROUNDS = 3;

/** The floor's statements, as the route's reads send them (src/auth/sessions.ts, src/verification/repository.ts). */
const SESSION_SQL = `select s.id, u.id as user_id, u.organization_id, u.role from session s join app_user u on u.id = s.user_id
  where s.token_hash = $1 and s.expires_at > $2`;
const JOB_ROW_SQL = `select * from verification_job where id = $1 and organization_id = $2`;

const step = (text: string) => console.log(`· ${text}`);
const cleanups: Array<() => Promise<unknown>> = [];
try {
  step('scratch database, Temporal server and the API process');
  // Jobs are started and nobody runs them: the job stays `smtp_verifying`, as a polled one is.
  const { db, service } = await startApiAlone('job_poll', cleanups);
  const cookie = await signUp(service.url, 'Poll');
  const headers = { cookie, origin: BENCH_ORIGIN, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) =>
    (await (await fetch(`${service.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })).json()) as { id: string };
  const listId = (await post('/api/lists', { name: 'Poll' })).id;
  await post(`/api/lists/${listId}/leads`, { leads: Array.from({ length: 200 }, (_, i) => ({ email: `u${i}@d${i % 50}.test` })) });
  const jobId = (await post('/api/verification/jobs', { listId, verificationMethod: 'smtp_only' })).id;
  const get = async () => {
    const res = await fetch(`${service.url}/api/verification/jobs/${jobId}`, { headers });
    const body = (await res.json()) as { id?: string };
    if (res.status !== 200 || body.id !== jobId) throw new Error(`GET answered ${res.status}: ${JSON.stringify(body)}`);
  };

  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  cleanups.unshift(() => client.end());
  const tokenHash = sha256Hex(cookie.slice(cookie.indexOf('=') + 1));
  const organizationId = (await client.query<{ organization_id: string }>(SESSION_SQL, [tokenHash, new Date()])).rows[0]?.organization_id;
  if (!organizationId) throw new Error('the session is not in the database');
  const floor = async () => {
    await client.query(SESSION_SQL, [tokenHash, new Date()]);
    await client.query(JOB_ROW_SQL, [jobId, organizationId]);
    await client.query(JOB_AGGREGATES_SQL.replace('?', '$1'), [[jobId]]);
  };

  const postgres = (before: Awaited<ReturnType<typeof cpuSample>>, after: Awaited<ReturnType<typeof cpuSample>>) => {
    let ticks = 0;
    for (const [pid, { name, ticks: now }] of after.byPid) if (name === 'postgres') ticks += now - (before.byPid.get(pid)?.ticks ?? 0);
    return ticks * 10_000;
  };
  const labels = new Map([[service.pid, 'api']]);
  const measure = async (run: () => Promise<void>) => {
    for (let i = 0; i < 200; i++) await run();
    const before = await cpuSample(labels);
    const started = performance.now();
    for (let i = 0; i < POLLS; i++) await run();
    const wallMicros = (performance.now() - started) * 1000;
    const after = await cpuSample(labels);
    const api = ((after.byPid.get(service.pid)?.ticks ?? 0) - (before.byPid.get(service.pid)?.ticks ?? 0)) * 10_000;
    return { wall: wallMicros / POLLS, api: api / POLLS, postgres: postgres(before, after) / POLLS };
  };
  step(`${ROUNDS} rounds of ${POLLS} GETs one at a time, each followed by ${POLLS} floor iterations`);
  const us = (micros: number) => `${Math.round(micros)} µs`;
  for (let round = 1; round <= ROUNDS; round++) {
    const app = await measure(get);
    const bare = await measure(floor);
    console.log(
      `  round ${round}: GET ${us(app.wall)} (API CPU ${us(app.api)}, PostgreSQL ${us(app.postgres)}); ` +
        `floor ${us(bare.wall)} (PostgreSQL ${us(bare.postgres)}): the GET at ${((100 * bare.wall) / app.wall).toFixed(1)} % of the floor's rate`,
    );
  }
} finally {
  for (const cleanup of cleanups) await cleanup().catch((error: unknown) => console.error(error));
}
