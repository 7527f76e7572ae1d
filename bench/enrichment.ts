/**
 * `npm run bench -- enrichment`: a bulk enrichment of a BENCH_ENRICH_LEADS-lead list (default 5,000) on a
 * real worker against instant stand-in PDL, Hunter and Lusha servers (rate limits lifted) and a local mail
 * world for the SMTP verification of every found address. Reports leads per second, the workflow's
 * history events, and the database round trips per lead made by the worker (every statement the worker's
 * own ORM instance sends, BEGIN/COMMIT/SAVEPOINT included, counted by a MikroORM query logger). It also
 * checks the result: the job's creditsUsed, the ledger and the balance must agree with the fixtures.
 *
 * Needs PostgreSQL at TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test, used as admin to
 * create a scratch database) and the Temporal CLI (TEMPORAL_CLI_PATH or a cached build).
 * E.g. BENCH_ENRICH_LEADS=500 for a smoke run; ENRICHMENT_BATCH_SIZE is honoured (default 50).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createActivityDeps } from '../activities/deps.ts';
import { loadConfig } from '../src/config.ts';
import { initOrm } from '../src/db/orm.ts';
import { applyCredits } from '../src/accounts/credits.ts';
import { insertLeads } from '../src/db/repos/leads.ts';
import { createList } from '../src/db/repos/lists.ts';
import { createApp } from '../src/http/app.ts';
import { startIntegrationAccess } from '../src/integration-access.ts';
import type { LeadInput } from '../src/domain/lead-input.ts';
import { createEnrichmentProviders } from '../src/providers/enrichment/index.ts';
import { createWorker } from '../src/worker.ts';
import { Agent } from '../test/support/agent.ts';
import { startMailWorld } from '../test/support/mail-world/index.ts';
import { startProviderServers } from '../test/support/providers/index.ts';
import { historyOf } from '../test/support/history.ts';
import { createScratchDatabase, LOCAL_ADMIN_URL, startScratchTemporal } from '../test/support/scratch.ts';

const LEADS = Number(process.env.BENCH_ENRICH_LEADS ?? 5_000);
const COMPANY_DOMAINS = 10;
const ORIGIN = 'http://bench.local';
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? LOCAL_ADMIN_URL;
const NO_LIMIT = { rateLimit: { perSecond: 1_000_000, burst: 1_000_000 } };

const cleanups: Array<() => Promise<unknown>> = [];
const step = (text: string) => console.log(`· ${text}`);

try {
  Runtime.install({ logger: new DefaultLogger('WARN') });

  step('scratch database');
  const db = await createScratchDatabase(ADMIN_URL, 'bench_enrich');
  cleanups.push(db.drop);
  const orm = await initOrm(db.url);
  cleanups.unshift(() => orm.close());

  step('Temporal dev server');
  const temporal = await startScratchTemporal();
  cleanups.unshift(temporal.teardown);

  step('stand-in providers and mail world');
  const providers = await startProviderServers();
  cleanups.unshift(() => providers.close());
  const perDomain = Math.ceil(LEADS / COMPANY_DOMAINS);
  const companyDomain = (i: number) => `company${i % COMPANY_DOMAINS}.test`;
  const boxes = (domain: string, count: number) => Array.from({ length: count }, (_, k) => `user${k}@${domain}`);
  const mail = await startMailWorld({
    domains: Object.fromEntries([
      ...Array.from({ length: COMPANY_DOMAINS }, (_, d) => [
        companyDomain(d),
        { mx: [{ host: `mx.${companyDomain(d)}`, preference: 10, ip: `127.0.90.${d + 1}`, behaviour: { mailboxes: boxes(companyDomain(d), perDomain), starttls: false } }] },
      ]),
      ['home.test', { mx: [{ host: 'mx.home.test', preference: 10, ip: '127.0.90.100', behaviour: { mailboxes: boxes('home.test', LEADS), starttls: false } }] }],
    ]),
  });
  cleanups.unshift(() => mail.stop());

  // A realistic mix: 6 in 10 found with everything, 2 with a work email only, 1 unverifiable, 1 unknown.
  let expectedCredits = 0;
  const urls: string[] = [];
  for (let i = 0; i < LEADS; i++) {
    const url = `https://www.linkedin.com/in/bench-${i}`;
    urls.push(url);
    const work = `user${Math.floor(i / COMPANY_DOMAINS)}@${companyDomain(i)}`;
    const kind = i % 10;
    if (kind < 6) {
      providers.pdl.fixtures.people.set(url, {
        first_name: 'Ann',
        work_email: work,
        personal_emails: [`user${i}@home.test`],
        mobile_phone: `+1415${String(5550000 + i).padStart(7, '0')}`,
      });
      expectedCredits += 4;
    } else if (kind < 8) {
      providers.pdl.fixtures.people.set(url, { first_name: 'Bo', work_email: work });
      expectedCredits += 1;
    } else if (kind === 8) {
      providers.pdl.fixtures.people.set(url, { first_name: 'Cy', work_email: `nobody${i}@${companyDomain(i)}` });
    }
  }

  const env = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: `bench-enrich-${Date.now()}`,
    APP_ORIGINS: ORIGIN,
    ...providers.urls,
    ...providers.keys,
    DNS_SERVERS: mail.dnsServers.join(','),
    SMTP_PROBE_PORT: String(mail.port),
    SMTP_PROBE_HELO: 'bench.test',
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_BURST: '1000000',
    ...(process.env.ENRICHMENT_BATCH_SIZE ? { ENRICHMENT_BATCH_SIZE: process.env.ENRICHMENT_BATCH_SIZE } : {}),
  };
  const config = loadConfig(env);

  step('worker (workflow bundle)');
  // The worker's own ORM instance: every statement it sends is logged once, and counted.
  let statements = 0;
  const workerOrm = await initOrm(db.url, {
    debug: ['query'],
    logger: () => {
      statements++;
    },
  });
  cleanups.unshift(() => workerOrm.close());
  // Production rate limits (PDL: 100/min) would measure the limiter; lifted, this measures the pipeline.
  const deps = { ...createActivityDeps(config, workerOrm), enrichmentProviders: createEnrichmentProviders(config, NO_LIMIT) };
  const { worker, connection } = await createWorker(config, deps);
  const running = worker.run();
  cleanups.unshift(async () => {
    worker.shutdown();
    await running;
    await connection.close();
  });

  step(`list of ${LEADS.toLocaleString('en')} leads`);
  const integrationAccess = startIntegrationAccess(config);
  cleanups.unshift(() => integrationAccess.close());
  const app = createApp({ config, orm, temporal: temporal.env.client, ...integrationAccess });
  const agent = new Agent(app);
  agent.origin = ORIGIN;
  const signup = await agent.post('/api/auth/signup', { email: `bench-${randomUUID()}@example.test`, password: 'correct horse battery', organizationName: 'Bench' });
  if (signup.status !== 201) throw new Error(`signup failed: ${signup.status} ${signup.text}`);
  const organizationId = signup.body.organization.id as string;
  const grant = LEADS * 4;
  await applyCredits(orm.em.fork(), { organizationId, delta: grant, reason: 'bench', idempotencyKey: `bench:${organizationId}` });
  const em = orm.em.fork();
  const list = await createList(em, organizationId, { name: 'bench' });
  await em.transactional((tx) => insertLeads(tx, organizationId, list.id, urls.map((networkUrl) => ({ networkUrl }) as LeadInput), 'import'));

  step('bulk enrichment');
  statements = 0;
  const started = performance.now();
  const created = await agent.post('/api/enrichment/bulk', { listId: list.id });
  if (created.status !== 201) throw new Error(`bulk failed: ${created.status} ${created.text}`);
  const jobId = created.body.jobId as string;
  let job: Record<string, unknown> = {};
  for (;;) {
    job = (await agent.get(`/api/enrichment/bulk/${jobId}`)).body;
    if (job.status === 'completed' || job.status === 'failed') break;
    await sleep(100);
  }
  const seconds = (performance.now() - started) / 1000;
  const workerStatements = statements;
  if (job.status !== 'completed') throw new Error(`job ended ${String(job.status)}: ${String(job.failureReason)}`);

  const runs = await historyOf(temporal.env.client, `enrichment-${jobId}`);
  const events = runs.reduce((sum, n) => sum + n, 0);
  const [ledger] = await orm.em
    .fork()
    .execute<Array<{ sum: string; balance: number }>>(
      `select (select sum(delta) from credit_ledger where organization_id = ?) as sum, credit_balance as balance from organization where id = ?`,
      [organizationId, organizationId],
    );
  const agrees = job.creditsUsed === expectedCredits && Number(ledger!.sum) === ledger!.balance && ledger!.balance === grant - expectedCredits;

  console.log('\nenrichment benchmark');
  console.log(`  leads                     ${LEADS.toLocaleString('en')} (batch ${config.ENRICHMENT_BATCH_SIZE})`);
  console.log(`  throughput                ${(LEADS / seconds).toFixed(0)} leads/s (${seconds.toFixed(2)} s end to end)`);
  console.log(`  workflow history          ${events} events in ${runs.length} run(s): ${(events / LEADS).toFixed(3)} events per lead`);
  console.log(`  database round trips      ${(workerStatements / LEADS).toFixed(2)} per lead (${workerStatements.toLocaleString('en')} statements by the worker)`);
  console.log(`  provider calls            ${(providers.pdl.requests.length + providers.hunter.requests.length + providers.lusha.requests.length).toLocaleString('en')}`);
  console.log(`  SMTP sessions             ${mail.totals().sessions.toLocaleString('en')} for ${mail.totals().rcpts.toLocaleString('en')} RCPTs`);
  console.log(
    `  credits                   job ${String(job.creditsUsed)}, expected ${expectedCredits}, ledger sum ${ledger!.sum}, balance ${ledger!.balance}: ${agrees ? 'AGREE' : 'MISMATCH'}`,
  );
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
