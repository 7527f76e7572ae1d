/**
 * `npm run bench -- api`: HTTP throughput and latency of the integrations' hot path on a real
 * @hono/node-server on loopback, layer by layer, next to a bare Hono handler answering the same bytes and
 * next to the page queries alone (the same SQL, 10 clients straight on PostgreSQL) and behind a bare handler
 * (the floor any route can reach here: one HTTP and one PostgreSQL round trip on one event loop), all in the
 * same run. The ratios are the numbers that matter: absolute figures depend on the machine. Then the app (as
 * `npm run start:api` runs it) and the floor each in a process of its own, with each server process's CPU time per
 * request: what a load generator outside the service sees (the floor in the bench's own process shares the app's
 * heap, JIT and background work, which flatters the app's ratio; see the README).
 *
 * Scratch database from TEST_DATABASE_URL (admin URL, default postgres://postgres@127.0.0.1:5432/test);
 * no Temporal (the client is lazy and never used on this path). Size: BENCH_API_SECONDS per target
 * (default 10), BENCH_API_CONNECTIONS (default 10); e.g. BENCH_API_SECONDS=2 for a smoke run. BENCH_API_PROFILE=<dir>:
 * CPU profiles of the two server processes.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import pg from 'pg';
import { issueApiKey } from '../src/auth/api-keys.ts';
import { loadConfig } from '../src/config.ts';
import { Organization } from '../src/db/entities/index.ts';
import { initOrm } from '../src/db/orm.ts';
import { databaseLimits } from '../src/db/pg-options.ts';
import { createList } from '../src/db/repos/lists.ts';
import { insertLeads } from '../src/db/repos/leads.ts';
import { pageLeadRows, pageListRows } from '../src/lists/repository-pages.ts';
import type { LeadInput } from '../src/domain/lead-input.ts';
import { createApp } from '../src/http/app.ts';
import { startIntegrationAccess } from '../src/integration-access.ts';
import type { AppEnv } from '../src/http/env.ts';
import { handleError } from '../src/http/error-handler.ts';
import { requireApiKey } from '../src/http/middleware/api-key.ts';
import { requestContext } from '../src/http/middleware/request-context.ts';
import { createTemporalClient } from '../src/temporal/client.ts';
import { createScratchDatabase, LOCAL_ADMIN_URL } from '../test/support/scratch.ts';
import { floorApp } from './support/api-floor.ts';
import { API_NODE_FLAGS } from './support/api-flags.ts';

interface Histogram {
  average: number;
  p50: number;
  p99: number;
}
interface Result {
  requests: Histogram;
  latency: Histogram;
  non2xx: number;
  errors: number;
  statusCodeStats: Record<string, { count: number }>;
}
type Autocannon = (options: {
  url: string;
  headers?: Record<string, string>;
  connections: number;
  duration: number;
  workers?: number;
}) => Promise<Result>;
// autocannon ships no types; this is the slice of its programmatic API used here.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const SECONDS = Number(process.env.BENCH_API_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_API_CONNECTIONS ?? 10);
const LISTS = 25;
const LEADS_PER_LIST = 40;
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? LOCAL_ADMIN_URL;
const PROFILE = process.env.BENCH_API_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_API_PROFILE}`] : [];

function listen(fetch: (req: Request) => Response | Promise<Response>): Promise<{ server: ServerType; url: string }> {
  return new Promise((resolve) => {
    const server = serve({ fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) =>
      resolve({ server, url: `http://127.0.0.1:${info.port}` }),
    );
  });
}

const close = (server: ServerType) => new Promise<void>((resolve) => server.close(() => resolve()));

/** Load runs in a worker thread, so the servers have this process's event loop to themselves. */
async function measure(name: string, url: string, headers: Record<string, string>, expectStatus: number, warmUp = true) {
  if (warmUp) await autocannon({ url, headers, connections: CONNECTIONS, duration: Math.min(2, SECONDS), workers: 1 });
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: SECONDS, workers: 1 });
  const statuses = Object.keys(result.statusCodeStats);
  if (result.errors > 0 || statuses.some((s) => Number(s) !== expectStatus)) {
    throw new Error(`${name}: expected only ${expectStatus}, got ${JSON.stringify(result.statusCodeStats)} and ${result.errors} errors`);
  }
  return { name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

/** `run` by CONNECTIONS clients back to back for SECONDS, each on its own connection: the database's own limit. */
async function measureQuery(name: string, pool: pg.Pool, run: () => Promise<unknown>) {
  const loop = async (until: number) => {
    let n = 0;
    while (performance.now() < until) {
      await run();
      n++;
    }
    return n;
  };
  const all = (seconds: number) => {
    const until = performance.now() + seconds * 1000;
    return Promise.all(Array.from({ length: CONNECTIONS }, () => loop(until)));
  };
  await all(Math.min(2, SECONDS)); // warm-up: every connection has prepared the statement
  const counts = await all(SECONDS);
  return { name, rps: counts.reduce((a, b) => a + b, 0) / SECONDS, p50: NaN, p99: NaN };
}

const db = await createScratchDatabase(ADMIN_URL, 'bench_api');
const servers: ServerType[] = [];
try {
  const config = loadConfig({
    DATABASE_URL: db.url,
    LOG_LEVEL: 'error',
    // The budget is only large enough never to refuse: one key makes thousands of requests a second here,
    // where the defaults allow 10. Batches of 1,000 keep the bucket's upserts (one per batch) as rare per
    // request as they are in production (about one a second per busy key and process: 600/min in batches of 12).
    RATE_LIMIT_BURST: '1000000000',
    RATE_LIMIT_PER_MINUTE: '1000000000',
    RATE_LIMIT_BATCH: '1000',
  });
  const orm = await initOrm(db.url, { pool: { max: config.DATABASE_POOL_MAX } }, databaseLimits(config));

  const em = orm.em.fork();
  const org = em.create(Organization, { name: 'Bench' });
  await em.flush();
  for (let i = 0; i < LISTS; i++) {
    const list = await createList(em, org.id, { name: `List ${i}`, description: 'bench' });
    const phone = (j: number) => `+1415555${String(i * LEADS_PER_LIST + j).padStart(4, '0')}`;
    const leads = Array.from({ length: LEADS_PER_LIST }, (_, j) => ({ email: `lead${i}-${j}@bench.test`, phone: phone(j) }) as LeadInput);
    await insertLeads(em, org.id, list.id, leads, 'api');
  }
  // Fresh tables have no statistics yet: plan the page queries as a live database would.
  await em.execute('analyze lead_list, lead');
  const { key } = await issueApiKey(em, { organizationId: org.id, userId: null, name: 'bench', scopes: ['lists:read', 'leads:read'], expiresAt: null });

  const temporal = createTemporalClient(config);
  const integrationAccess = startIntegrationAccess(config);
  const deps = { config, orm, temporal, ...integrationAccess };
  const app = createApp(deps);
  // The load generator stops with requests in flight; the ORM may only close once they are answered.
  let inFlight = 0;
  const tracked = (fetch: (req: Request) => Response | Promise<Response>) => async (req: Request) => {
    inFlight++;
    try {
      return await fetch(req);
    } finally {
      inFlight--;
    }
  };
  const full = await listen(tracked(app.fetch));
  servers.push(full.server);

  // The bare handler answers exactly the bytes the real route does.
  const path = '/api/external/lists';
  const sample = await fetch(`${full.url}${path}`, { headers: { 'X-API-Key': key } });
  if (sample.status !== 200) throw new Error(`setup: ${sample.status} ${await sample.text()}`);
  const body = await sample.text();
  const json = { 'Content-Type': 'application/json' };
  const bare = await listen(new Hono().get(path, (c) => c.body(body, 200, json)).fetch);
  servers.push(bare.server);
  // The key check and rate-limit upsert alone, in front of the same canned answer: what authentication costs.
  const contextOnlyApp = new Hono<AppEnv>().use('*', requestContext(deps));
  contextOnlyApp.get(path, (c) => c.body(body, 200, json));
  const contextOnly = await listen(tracked(contextOnlyApp.fetch));
  servers.push(contextOnly.server);
  const authOnlyApp = new Hono<AppEnv>().use('*', requestContext(deps));
  authOnlyApp.get(path, requireApiKey(['lists:read']), (c) => c.body(body, 200, json)).onError(handleError);
  const authOnly = await listen(tracked(authOnlyApp.fetch));
  servers.push(authOnly.server);

  console.log(`GET ${path}: ${CONNECTIONS} connections, ${SECONDS} s per target, ${LISTS} lists (page of 20 with lead counts), ${body.length} bytes`);
  const phone = '+14155550421';
  const phonePath = `/api/external/leads?phone=${encodeURIComponent(phone)}`;
  const direct = new pg.Pool({ connectionString: db.url, max: CONNECTIONS });
  // The floor of any route on this machine: the same query and the route's page JSON behind a bare handler, nothing else.
  const floorPool = new pg.Pool({ connectionString: db.url, max: CONNECTIONS });
  const floor = await listen(floorApp(floorPool, org.id, phone).fetch);
  servers.push(floor.server);
  const keyed = { 'X-API-Key': key };
  const rows = [
    await measure('bare Hono handler', `${bare.url}${path}`, {}, 200),
    await measure('request context only, canned body', `${contextOnly.url}${path}`, {}, 200),
    await measure('app, malformed key (401, no DB)', `${full.url}${path}`, { 'X-API-Key': 'lek_malformed' }, 401),
    await measure('key check + rate limit, canned body', `${authOnly.url}${path}`, keyed, 200),
    await measureQuery('raw list page query, 10 clients', direct, () => pageListRows(direct, org.id, 0, 20)),
    await measure('bare handler + list page query', `${floor.url}${path}`, {}, 200),
    await measure('app, GET /api/external/lists', `${full.url}${path}`, keyed, 200),
    await measureQuery('raw lead phone query, 10 clients', direct, () => pageLeadRows(direct, org.id, { phone }, 0, 20)),
    await measure('bare handler + phone query', `${floor.url}${phonePath}`, {}, 200),
    await measure('app, GET /api/external/leads?phone=', `${full.url}${phonePath}`, keyed, 200),
  ];
  await direct.end();
  const [baseline] = rows;
  const byName = (name: string) => rows.find((r) => r.name === name)!;
  const against: Record<string, [raw: string, floor?: string]> = {
    'bare handler + list page query': ['raw list page query, 10 clients'],
    'app, GET /api/external/lists': ['raw list page query, 10 clients', 'bare handler + list page query'],
    'bare handler + phone query': ['raw lead phone query, 10 clients'],
    'app, GET /api/external/leads?phone=': ['raw lead phone query, 10 clients', 'bare handler + phone query'],
  };
  const ratio = (r: (typeof rows)[number], other: string | undefined) =>
    other ? `${((r.rps / byName(other).rps) * 100).toFixed(1)} %` : '';
  console.table(
    rows.map((r) => ({
      target: r.name,
      'req/s': Math.round(r.rps),
      'p50 ms': r.p50,
      'p99 ms': r.p99,
      'vs bare': `${((r.rps / baseline!.rps) * 100).toFixed(1)} %`,
      'vs raw query': ratio(r, against[r.name]?.[0]),
      'vs bare handler + query': ratio(r, against[r.name]?.[1]),
    })),
  );

  await Promise.all(servers.splice(0).map(close));
  await floorPool.end();

  // The same two pairs with the app and the floor each in a process of its own, the app as deployed (`npm run
  // start:api`: its heap's flags), the load generator in this one: what a load generator outside the service sees.
  const env = {
    ...process.env,
    DATABASE_URL: db.url,
    RATE_LIMIT_BURST: '1000000000',
    RATE_LIMIT_PER_MINUTE: '1000000000',
    RATE_LIMIT_BATCH: '1000',
    BENCH_ORG_ID: org.id,
    BENCH_PHONE: phone,
    BENCH_CONNECTIONS: String(CONNECTIONS),
  };
  const own = async (script: string, execArgv: string[] = []) => {
    const child = fork(join(import.meta.dirname, 'support', script), [], { env, execArgv: [...execArgv, ...PROFILE], stdio: 'inherit' });
    const [{ port }] = (await once(child, 'message')) as [{ port: number }];
    const cpuMicros = async () => {
      const answer = once(child, 'message') as Promise<[{ cpuMicros: number }]>;
      child.send('cpu');
      return (await answer)[0].cpuMicros;
    };
    return { url: `http://127.0.0.1:${port}`, cpuMicros, stop: () => (child.send('stop'), once(child, 'exit')) };
  };
  /** `measure`, with the server process's CPU time per request (the warm-up's requests and CPU included in neither). */
  const measureProcess = async (name: string, server: Awaited<ReturnType<typeof own>>, url: string, headers: Record<string, string>) => {
    await autocannon({ url, headers, connections: CONNECTIONS, duration: Math.min(2, SECONDS), workers: 1 });
    const before = await server.cpuMicros();
    const result = await measure(name, url, headers, 200, false);
    return { ...result, cpuPerRequest: ((await server.cpuMicros()) - before) / (result.rps * SECONDS) };
  };
  const appProcess = await own('api-process.ts', API_NODE_FLAGS);
  const floorProcess = await own('api-floor.ts');
  // The same floor under the API role's V8 flags (its smaller young generation collects more often): what the
  // flags cost, apart from what the app's own layers cost.
  const flaggedFloor = await own('api-floor.ts', API_NODE_FLAGS);
  try {
    const pages = [
      ['list page', path, 'GET /api/external/lists'],
      ['phone', phonePath, 'GET /api/external/leads?phone='],
    ] as const;
    const separate = [];
    for (const [what, url, route] of pages) {
      const floor = await measureProcess(`floor process, ${what}`, floorProcess, `${floorProcess.url}${url}`, {});
      const flagged = await measureProcess(`floor process, ${what}, the API's V8 flags`, flaggedFloor, `${flaggedFloor.url}${url}`, {});
      const app = await measureProcess(`app process, ${route}`, appProcess, `${appProcess.url}${url}`, keyed);
      const pct = (r: { rps: number }, of: { rps: number }) => `${((r.rps / of.rps) * 100).toFixed(1)} %`;
      separate.push({ r: floor, vsFloor: '', vsFlagged: '' }, { r: flagged, vsFloor: pct(flagged, floor), vsFlagged: '' }, { r: app, vsFloor: pct(app, floor), vsFlagged: pct(app, flagged) });
    }
    console.log('Each in a process of its own:');
    console.table(
      separate.map(({ r, vsFloor, vsFlagged }) => ({
        target: r.name,
        'req/s': Math.round(r.rps),
        'p50 ms': r.p50,
        'p99 ms': r.p99,
        'CPU µs/request': Math.round(r.cpuPerRequest),
        'vs its floor process': vsFloor,
        'vs the floor, same flags': vsFlagged,
      })),
    );
  } finally {
    await Promise.all([appProcess.stop(), floorProcess.stop(), flaggedFloor.stop()]);
  }
  while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  await temporal.connection.close();
  await integrationAccess.close();
  await orm.close();
} finally {
  await Promise.all(servers.map(close));
  await db.drop();
}
