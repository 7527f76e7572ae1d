/**
 * `npm run bench -- scrape`: uploads a CSV of BENCH_SCRAPE_ROWS (default 50,000) company rows through the
 * real HTTP server (@hono/node-server on loopback, in a process of its own), then processes the job on a
 * real worker against an instant stand-in Serper. Reports upload time, rows stored per second, the API
 * process's peak RSS growth during the upload (target < 100 MB), processing items per second and the
 * workflow's history events (target < 2,000).
 *
 * Needs PostgreSQL at TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test, used as admin to
 * create a scratch database) and the Temporal CLI (TEMPORAL_CLI_PATH or a cached build).
 */
import { forkChild } from './support/child.ts';
import { once } from 'node:events';
import { type IncomingMessage, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createActivityDeps } from '../activities/deps.ts';
import { loadConfig } from '../src/config.ts';
import { initOrm } from '../src/db/orm.ts';
import { createSearchProvider } from '../src/providers/search/index.ts';
import { createWorker } from '../src/worker.ts';
import { startSerperServer } from '../src/sandbox/providers/serper.ts';
import { historyOf } from '../test/support/history.ts';
import { createScratchDatabase, LOCAL_ADMIN_URL, startScratchTemporal } from '../test/support/scratch.ts';

const ROWS = Number(process.env.BENCH_SCRAPE_ROWS ?? 50_000);
const FOUND_EVERY = 10;
const RSS_LIMIT_MB = 100;
const HISTORY_LIMIT = 2_000;
const ORIGIN = 'http://bench.local';
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? LOCAL_ADMIN_URL;
const MB = 1024 * 1024;

const cleanups: Array<() => Promise<unknown>> = [];
const step = (text: string) => console.log(`· ${text}`);

try {
  Runtime.install({ logger: new DefaultLogger('WARN') });

  step('scratch database');
  const db = await createScratchDatabase(ADMIN_URL, 'bench_scrape');
  cleanups.push(db.drop);
  const orm = await initOrm(db.url);
  cleanups.unshift(() => orm.close());

  step('Temporal dev server');
  const temporal = await startScratchTemporal();
  cleanups.unshift(temporal.teardown);

  const serper = await startSerperServer();
  cleanups.unshift(() => serper.close());
  for (let i = FOUND_EVERY; i <= ROWS; i += FOUND_EVERY) {
    serper.fixtures.results.set(`site:linkedin.com/in "Bench Co ${i}" "VP Sales"`, [
      { title: `Ann Lee - VP Sales - Bench Co ${i} | LinkedIn`, link: `https://www.linkedin.com/in/bench-${i}` },
    ]);
  }

  const env = {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: `bench-scrape-${Date.now()}`,
    APP_ORIGINS: ORIGIN,
    SERPER_BASE_URL: serper.url,
    SERPER_API_KEY: serper.apiKey,
    SCRAPE_MAX_ROWS: String(Math.max(ROWS, 50_000)),
    SCRAPE_MAX_FILE_BYTES: String(64 * MB),
    RATE_LIMIT_PER_MINUTE: '100000',
    RATE_LIMIT_BURST: '100000',
  };
  const config = loadConfig(env);

  step('worker (workflow bundle)');
  // The adapter's production rate limit (5/s) would measure the limiter; lifted, this measures the pipeline.
  const base = createActivityDeps(config, orm);
  const { worker, connection } = await createWorker(config, {
    ...base,
    search: createSearchProvider(config, { rateLimit: { perSecond: 1_000_000, burst: 1_000_000 } }),
  });
  const running = worker.run();
  cleanups.unshift(async () => {
    worker.shutdown();
    await running;
    await connection.close();
  });

  step('API process');
  const api = forkChild('support/api-process.ts', { env, execArgv: ['--expose-gc'] });
  cleanups.unshift(api.stop);
  const ask = api.ask;
  const { port } = await ask<{ port: number }>(null);
  const baseUrl = `http://127.0.0.1:${port}`;

  const signup = await fetch(`${baseUrl}/api/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: ORIGIN },
    body: JSON.stringify({ email: `bench-${Date.now()}@example.test`, password: 'correct horse battery', organizationName: 'Bench' }),
  });
  if (signup.status !== 201) throw new Error(`signup failed: ${signup.status} ${await signup.text()}`);
  const cookie = signup.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');

  // Warm-up (JIT, lazy modules, pool connections) so the baseline is the server at rest, not cold.
  await uploadCsv(baseUrl, cookie, 200, 'warm-up');

  step(`upload of ${ROWS.toLocaleString('en')} rows`);
  await ask('reset');
  const uploadStart = performance.now();
  const created = await uploadCsv(baseUrl, cookie, ROWS, 'bench');
  const uploadMs = performance.now() - uploadStart;
  const memory = await ask<{ baselineRss: number; peakRss: number }>('report');
  const jobId = created.job.id as string;
  if (created.job.totalItems !== ROWS) throw new Error(`stored ${created.job.totalItems} rows, expected ${ROWS}`);

  step('processing');
  const processStart = performance.now();
  let last = { status: 'pending', completed: 0, found: 0 };
  for (;;) {
    const [row] = await orm.em.fork().execute<Array<{ status: string; completed: number; found: number }>>(
      `select status, completed_items as completed, found_items as found from scrape_job where id = ?`,
      [jobId],
    );
    last = row!;
    if (last.status === 'completed' || last.status === 'failed') break;
    await sleep(100);
  }
  const processMs = performance.now() - processStart;
  if (last.status !== 'completed') throw new Error(`job ended ${last.status}`);

  const runs = await historyOf(temporal.env.client, `scrape-${jobId}`);
  const events = runs.reduce((sum, n) => sum + n, 0);
  const searches = serper.requests.filter((r) => (r.body as { q?: string }).q?.includes('"Bench Co ')).length;

  const growthMb = (memory.peakRss - memory.baselineRss) / MB;
  const verdict = (ok: boolean) => (ok ? 'OK' : 'OVER');
  console.log('\nscrape benchmark');
  console.log(`  rows                      ${ROWS.toLocaleString('en')}`);
  console.log(`  upload                    ${(uploadMs / 1000).toFixed(2)} s, ${Math.round(ROWS / (uploadMs / 1000)).toLocaleString('en')} rows/s stored`);
  console.log(
    `  API peak RSS growth       ${growthMb.toFixed(1)} MB (baseline ${(memory.baselineRss / MB).toFixed(0)} MB) — ${(growthMb / RSS_LIMIT_MB).toFixed(2)} of the ${RSS_LIMIT_MB} MB limit: ${verdict(growthMb < RSS_LIMIT_MB)}`,
  );
  console.log(
    `  processing                ${(processMs / 1000).toFixed(2)} s, ${Math.round(ROWS / (processMs / 1000)).toLocaleString('en')} items/s (${last.found.toLocaleString('en')} found, ${searches.toLocaleString('en')} searches for ${ROWS.toLocaleString('en')} items)`,
  );
  console.log(
    `  workflow history          ${events} events in ${runs.length} run(s), largest run ${Math.max(...runs)} — ${(events / HISTORY_LIMIT).toFixed(2)} of the ${HISTORY_LIMIT} limit: ${verdict(events < HISTORY_LIMIT)}`,
  );
} finally {
  for (const cleanup of cleanups) {
    try {
      await cleanup();
    } catch (error) {
      console.error('cleanup failed:', error);
    }
  }
}

/** Streams a multipart upload whose CSV rows are generated as the socket drains: the client holds no file. */
async function uploadCsv(baseUrl: string, cookie: string, rows: number, tag: string) {
  const boundary = `----bench${Date.now()}`;
  const req = request(`${baseUrl}/api/scrape/jobs`, {
    method: 'POST',
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, cookie, origin: ORIGIN },
  });
  const response = once(req, 'response') as Promise<[IncomingMessage]>;
  const write = async (text: string) => {
    if (!req.write(text)) await once(req, 'drain');
  };
  await write(`--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\n${tag}\r\n`);
  await write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${tag}.csv"\r\nContent-Type: text/csv\r\n\r\ncompany,title\r\n`);
  for (let i = 1; i <= rows; ) {
    let chunk = '';
    for (const end = Math.min(rows, i + 999); i <= end; i++) chunk += `${tag === 'bench' ? 'Bench' : 'Warm'} Co ${i},VP Sales\r\n`;
    await write(chunk);
  }
  req.end(`\r\n--${boundary}--\r\n`);
  const [res] = await response;
  let text = '';
  for await (const part of res) text += part;
  if (res.statusCode !== 201) throw new Error(`upload failed: ${res.statusCode} ${text}`);
  return JSON.parse(text) as { job: { id: string; totalItems: number } };
}
