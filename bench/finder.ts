/**
 * `npm run bench -- finder`: the email finder in bulk enrichment (CONTRACT §14). BENCH_FINDER_LEADS leads (10,000)
 * with names, a company domain and a profile URL, BENCH_FINDER_PER_DOMAIN (20) per domain over a fleet of one MX
 * host per domain whose every reply comes BENCH_FINDER_LATENCY_MS (L, 20 ms) late: domains of mixed templates
 * (first.last, flast, first, firstlast, f.last, first_last, last.first), one in five accepting every address, one
 * person per domain without a mailbox. A stand-in PDL that knows nobody is the paid provider after the finder.
 * Two bulk jobs (fields: workEmail), so each figure is read where it applies:
 *
 * - cold: the first person of every domain, nothing learned yet (the documented default order);
 * - warm: everyone else, after the cold job taught each domain its template (and the catch-all verdicts).
 *
 * Reports RCPTs per found address (target ≤ 1.5 where the template is learned: the warm job), addresses found per
 * second against the SMTP ceiling of the same run (SMTP_PROBE_CONCURRENCY / L RCPTs per second) and against the
 * floor the fleet allows (one bare session per found address, 50 at a time: the bulk job's leads in flight), the
 * share of leads completed without a paid provider, and whether credits, the ledger and the balance agree.
 * Needs PostgreSQL at TEST_DATABASE_URL (admin, for a scratch database) and the Temporal CLI.
 */
import { forkChild } from './support/child.ts';
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createActivityDeps } from '../activities/deps.ts';
import { loadConfig } from '../src/config.ts';
import { initOrm } from '../src/db/orm.ts';
import { applyCredits } from '../src/accounts/credits.ts';
import { createApp } from '../src/http/app.ts';
import { startIntegrationAccess } from '../src/integration-access.ts';
import { createEnrichmentProviders } from '../src/providers/enrichment/index.ts';
import { setLogLevel } from '../src/log.ts';
import { createWorker } from '../src/worker.ts';
import { Agent } from '../test/support/agent.ts';
import { startProviderServers } from '../test/support/providers/index.ts';
import { createScratchDatabase, LOCAL_ADMIN_URL, startScratchTemporal } from '../test/support/scratch.ts';
import { bareSessions } from './support/bare-sessions.ts';
import { domainOf, exists, hostIpOf, isCatchAll, mailboxOf, person } from './support/finder-people.ts';

const LEADS = Number(process.env.BENCH_FINDER_LEADS ?? 10_000);
const PER_DOMAIN = Number(process.env.BENCH_FINDER_PER_DOMAIN ?? 20);
const DOMAINS = Math.ceil(LEADS / PER_DOMAIN);
const LATENCY_MS = Number(process.env.BENCH_FINDER_LATENCY_MS ?? 20);
/** The bulk engine's leads in flight (src/enrichment/engine.ts LEAD_CONCURRENCY): the floor's sessions at once. */
const IN_FLIGHT = 50;
const ORIGIN = 'http://bench.local';
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? LOCAL_ADMIN_URL;
const NO_LIMIT = { rateLimit: { perSecond: 1_000_000, burst: 1_000_000 } };

const cleanups: Array<() => Promise<unknown>> = [];
const step = (text: string) => console.log(`· ${text}`);

try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  setLogLevel('error');

  step('scratch database, Temporal dev server, stand-in PDL');
  const db = await createScratchDatabase(ADMIN_URL, 'bench_finder');
  cleanups.push(db.drop);
  const orm = await initOrm(db.url);
  cleanups.unshift(() => orm.close());
  const sql = (query: string, params: unknown[] = []) => orm.em.fork().execute(query, params);
  const temporal = await startScratchTemporal();
  cleanups.unshift(temporal.teardown);
  const providers = await startProviderServers();
  cleanups.unshift(() => providers.close());

  step(`SMTP fleet: ${DOMAINS} domains × ${PER_DOMAIN} people; ${LATENCY_MS} ms per reply`);
  const fleet = forkChild('support/finder-fleet.ts', { env: { ...process.env, FLEET_DOMAINS: String(DOMAINS), FLEET_PER_DOMAIN: String(PER_DOMAIN), FLEET_LATENCY_MS: String(LATENCY_MS) } });
  cleanups.unshift(fleet.stop);
  const ask = fleet.ask;
  const world = await ask<{ port: number; dnsServers: string[] }>(null);
  const totals = () => ask<{ sessions: number; rcpts: number; dataCommands: number }>('stats');

  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: `bench-finder-${Date.now()}`,
    APP_ORIGINS: ORIGIN,
    ...providers.urls,
    ...providers.keys,
    SMTP_PROBE_PORT: String(world.port),
    DNS_SERVERS: world.dnsServers.join(','),
    SMTP_PROBE_HELO: 'bench.local',
    SMTP_CANARY_DOMAINS: '',
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_BURST: '1000000',
  });
  const ceiling = config.SMTP_PROBE_CONCURRENCY / (LATENCY_MS / 1000);

  step('worker (workflow bundle)');
  const deps = { ...createActivityDeps(config, orm), enrichmentProviders: createEnrichmentProviders(config, NO_LIMIT) };
  const { worker, connection } = await createWorker(config, deps);
  const running = worker.run();
  cleanups.unshift(async () => {
    worker.shutdown();
    await running;
    await connection.close();
  });
  const integrationAccess = startIntegrationAccess(config);
  cleanups.unshift(() => integrationAccess.close());
  const app = createApp({ config, orm, temporal: temporal.env.client, ...integrationAccess });
  const agent = new Agent(app);
  agent.origin = ORIGIN;
  const signup = await agent.post('/api/auth/signup', { email: `bench-${randomUUID()}@example.test`, password: 'correct horse battery', organizationName: 'Bench' });
  if (signup.status !== 201) throw new Error(`signup failed: ${signup.status} ${signup.text}`);
  const organizationId = signup.body.organization.id as string;
  await applyCredits(orm.em.fork(), { organizationId, delta: LEADS, reason: 'bench', idempotencyKey: `bench:${organizationId}` });

  /** A list of the people (d, k) for `ks`, inserted set-based (the import path is not what is measured). */
  async function listOf(name: string, ks: number[]): Promise<{ listId: string; leads: number }> {
    const list = await agent.post('/api/lists', { name });
    if (list.status !== 201) throw new Error(`list failed: ${list.status} ${list.text}`);
    const rows = ks.flatMap((k) =>
      Array.from({ length: DOMAINS }, (_, d) => ({ ...person(d, k), domain: domainOf(d), url: `https://www.linkedin.com/in/p-${d}-${k}` })),
    );
    await sql(
      `insert into lead (id, organization_id, list_id, first_name, last_name, company_domain, network_url, source, created_at, updated_at)
       select gen_random_uuid(), l.organization_id, l.id, r.first, r.last, r.domain, r.url, 'import', now(), now()
       from lead_list l, jsonb_to_recordset(?::jsonb) as r(first text, last text, domain text, url text) where l.id = ?`,
      [JSON.stringify(rows.map((r) => ({ first: r.firstName, last: r.lastName, domain: r.domain, url: r.url }))), list.body.id],
    );
    return { listId: list.body.id as string, leads: rows.length };
  }

  async function run(name: string, ks: number[]) {
    const { listId, leads } = await listOf(name, ks);
    const before = await totals();
    const paidBefore = providers.pdl.requests.length;
    const started = performance.now();
    const created = await agent.post('/api/enrichment/bulk', { listId, fields: ['workEmail'] });
    if (created.status !== 201) throw new Error(`bulk failed: ${created.status} ${created.text}`);
    let job: Record<string, unknown>;
    for (;;) {
      job = (await agent.get(`/api/enrichment/bulk/${created.body.jobId as string}`)).body;
      if (job.status === 'completed' || job.status === 'failed') break;
      await sleep(200);
    }
    const seconds = (performance.now() - started) / 1000;
    if (job.status !== 'completed') throw new Error(`job ended ${String(job.status)}: ${String(job.failureReason)}`);
    const after = await totals();
    const [row] = await sql(`select count(*) filter (where work_email is not null) as found from lead where list_id = ?`, [listId]);
    const found = Number(row?.found ?? 0);
    const expected = ks.reduce((n, k) => n + Array.from({ length: DOMAINS }, (_, d) => d).filter((d) => !isCatchAll(d) && exists(k, PER_DOMAIN)).length, 0);
    const rcpts = after.rcpts - before.rcpts;
    const paid = providers.pdl.requests.length - paidBefore;
    return { name, leads, found, expected, rcpts, sessions: after.sessions - before.sessions, seconds, paid, credits: Number(job.creditsUsed) };
  }

  step('cold job: the first person of every domain');
  const cold = await run('cold', [0]);
  step(`warm job: the other ${PER_DOMAIN - 1} people of every domain`);
  const warm = await run('warm', Array.from({ length: PER_DOMAIN - 1 }, (_, k) => k + 1));

  step('floor: one bare session per address the warm job found');
  const floorDomains = Array.from({ length: PER_DOMAIN - 1 }, (_, k) => k + 1).flatMap((k) =>
    Array.from({ length: DOMAINS }, (_, d) => d)
      .filter((d) => !isCatchAll(d) && exists(k, PER_DOMAIN))
      .map((d) => ({ ip: hostIpOf(d), domain: domainOf(d), addresses: [mailboxOf(d, k)] })),
  );
  const floorMs = await bareSessions(world.port, floorDomains, IN_FLIGHT);
  const floorRate = floorDomains.length / (floorMs / 1000);

  const [ledgerRow] = await sql(
    `select (select coalesce(sum(delta), 0) from credit_ledger where organization_id = ?) as sum, credit_balance as balance from organization where id = ?`,
    [organizationId, organizationId],
  );
  const ledger = { sum: Number(ledgerRow?.sum ?? NaN), balance: Number(ledgerRow?.balance ?? NaN) };
  const credits = cold.credits + warm.credits;
  const agrees = credits === cold.found + warm.found && Number(ledger.sum) === Number(ledger.balance) && Number(ledger.balance) === LEADS - credits;

  console.log(
    `\nfinder benchmark (load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.availableParallelism()} cores); ${LEADS.toLocaleString('en')} leads over ${DOMAINS} domains (20 % catch-all, one person in ${PER_DOMAIN} without a mailbox); L = ${LATENCY_MS} ms, concurrency ${config.SMTP_PROBE_CONCURRENCY}, SMTP ceiling ${Math.round(ceiling)} RCPTs/s`,
  );
  for (const r of [cold, warm]) {
    const perFound = r.rcpts / Math.max(1, r.found);
    console.log(
      `  ${r.name.padEnd(5)} ${r.leads.toLocaleString('en')} leads in ${r.seconds.toFixed(1)} s: found ${r.found} of ${r.expected} findable (${((100 * r.found) / Math.max(1, r.expected)).toFixed(1)} %); ` +
        `${r.rcpts} RCPTs in ${r.sessions} sessions = ${perFound.toFixed(2)} per found address${r.name === 'warm' ? ` (target ≤ 1.5: ${perFound <= 1.5 ? 'OK' : 'MISSED'})` : ''}; ` +
        `${(r.found / r.seconds).toFixed(1)} found/s, ${(r.rcpts / r.seconds).toFixed(0)} RCPTs/s = ${(r.rcpts / r.seconds / ceiling).toFixed(3)} of the ceiling; ` +
        `completed without a paid provider ${((100 * (r.leads - r.paid)) / r.leads).toFixed(1)} % (PDL asked for ${r.paid})`,
    );
  }
  console.log(`  floor  ${floorDomains.length} bare one-address sessions, ${IN_FLIGHT} at a time: ${floorRate.toFixed(1)}/s; warm found/s = ${(warm.found / warm.seconds / floorRate).toFixed(2)} of it`);
  console.log(`  all    completed without a paid provider ${((100 * (cold.leads + warm.leads - cold.paid - warm.paid)) / (cold.leads + warm.leads)).toFixed(1)} %`);
  console.log(`  credits jobs ${credits}, found ${cold.found + warm.found}, ledger sum ${ledger.sum}, balance ${ledger.balance}: ${agrees ? 'AGREE' : 'MISMATCH'}`);
  if (!agrees) process.exitCode = 1;
} finally {
  for (const cleanup of cleanups) {
    try {
      await cleanup();
    } catch (error) {
      console.error('cleanup failed:', error);
    }
  }
}
