/**
 * `npm run bench -- verification`: one smtp_only job of BENCH_VERIFY_ADDRESSES (default 10,000) addresses
 * over BENCH_VERIFY_DOMAINS (default 200) domains, each on its own MX host that answers every command after
 * BENCH_VERIFY_LATENCY_MS (default 20 ms), with the default SMTP limits (SMTP_PROBE_CONCURRENCY 100,
 * SMTP_PROBE_PER_DOMAIN 2). The fleet runs in a process of its own; the API and the real worker run here.
 *
 * Reports addresses per second against the ceiling SMTP_PROBE_CONCURRENCY / latency (target ≥ 60%), the
 * share of the job's wall time with no SMTP probe in progress, i.e. orchestration and database alone
 * (target < 15%), and the workflow's history events (target < 2,000).
 *
 * Needs PostgreSQL at TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test, used as admin to
 * create a scratch database) and the Temporal CLI (TEMPORAL_CLI_PATH or a cached build).
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createActivityDeps } from '../activities/deps.ts';
import { loadConfig } from '../src/config.ts';
import { initOrm } from '../src/db/orm.ts';
import { createApp } from '../src/http/app.ts';
import { startHotPath } from '../src/hot-path.ts';
import { setLogLevel } from '../src/log.ts';
import { createWorker } from '../src/temporal/worker.ts';
import { Agent } from '../test/support/agent.ts';
import { createScratchDatabase, LOCAL_ADMIN_URL, startScratchTemporal } from '../test/support/scratch.ts';

const ADDRESSES = Number(process.env.BENCH_VERIFY_ADDRESSES ?? 10_000);
const DOMAINS = Number(process.env.BENCH_VERIFY_DOMAINS ?? 200);
const LATENCY_MS = Number(process.env.BENCH_VERIFY_LATENCY_MS ?? 20);
const CEILING_SHARE_TARGET = 0.6;
const ORCHESTRATION_LIMIT = 0.15;
const HISTORY_LIMIT = 2_000;
const ORIGIN = 'http://bench.local';
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? LOCAL_ADMIN_URL;

const perDomain = Math.ceil(ADDRESSES / DOMAINS);
const cleanups: Array<() => Promise<unknown>> = [];
const step = (text: string) => console.log(`· ${text}`);

/** `count` addresses spread evenly over the fleet's domains, alternating existing and non-existing mailboxes. */
function addresses(count: number, domains: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const domain = `d${i % domains}.bench`;
    const round = Math.floor(i / domains);
    return round % 2 === 0 ? `user${round / 2}@${domain}` : `nobody${(round - 1) / 2}@${domain}`;
  });
}

/** Total length of the union of [start, end] intervals. */
function unionLength(intervals: Array<[number, number]>): number {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let [from, to] = sorted[0] ?? [0, 0];
  for (const [start, end] of sorted.slice(1)) {
    if (start > to) {
      total += to - from;
      [from, to] = [start, end];
    } else to = Math.max(to, end);
  }
  return total + (to - from);
}

try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  setLogLevel('error');

  step('scratch database');
  const db = await createScratchDatabase(ADMIN_URL, 'bench_verify');
  cleanups.push(db.drop);
  const orm = await initOrm(db.url);
  cleanups.unshift(() => orm.close());

  step('Temporal dev server');
  const temporal = await startScratchTemporal();
  cleanups.unshift(temporal.teardown);

  step(`SMTP fleet: ${DOMAINS} MX hosts, ${LATENCY_MS} ms per reply`);
  const fleet = fork(path.join(import.meta.dirname, 'support/mail-fleet.ts'), [], {
    env: {
      ...process.env,
      FLEET_DOMAINS: String(DOMAINS),
      FLEET_ADDRESSES_PER_DOMAIN: String(perDomain),
      FLEET_LATENCY_MS: String(LATENCY_MS),
    },
    stdio: 'inherit',
  });
  cleanups.unshift(async () => {
    fleet.send('stop');
    await Promise.race([once(fleet, 'exit'), sleep(5_000).then(() => fleet.kill())]);
  });
  const ask = async <T>(message: string | null): Promise<T> => {
    const answer = once(fleet, 'message') as Promise<[T]>;
    if (message) fleet.send(message);
    return (await answer)[0];
  };
  const world = await ask<{ port: number; dnsServers: string[] }>(null);

  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: `bench-verify-${Date.now()}`,
    APP_ORIGINS: ORIGIN,
    SMTP_PROBE_PORT: String(world.port),
    DNS_SERVERS: world.dnsServers.join(','),
    SMTP_PROBE_HELO: 'bench.local',
    RATE_LIMIT_BURST: '1000000',
  });

  step('worker (workflow bundle)');
  const deps = createActivityDeps(config, orm);
  // Every probeDomain call is an interval of SMTP work; wall time covered by none of them is orchestration.
  const smtpIntervals: Array<[number, number]> = [];
  const probeDomain = deps.prober.probeDomain.bind(deps.prober);
  deps.prober.probeDomain = async (...args) => {
    const start = Date.now();
    try {
      return await probeDomain(...args);
    } finally {
      smtpIntervals.push([start, Date.now()]);
    }
  };
  let connectionSamples = 0;
  let connectionSum = 0;
  const sampler = setInterval(() => {
    if (deps.prober.activeConnections === 0) return;
    connectionSamples += 1;
    connectionSum += deps.prober.activeConnections;
  }, 5);
  cleanups.unshift(async () => clearInterval(sampler));
  const { worker, connection } = await createWorker(config, deps);
  const running = worker.run();
  cleanups.unshift(async () => {
    worker.shutdown();
    await running;
    await connection.close();
  });

  const hotPath = startHotPath(config);
  cleanups.unshift(() => hotPath.close());
  const app = createApp({ config, orm, temporal: temporal.env.client, ...hotPath });
  const agent = new Agent(app);
  agent.origin = ORIGIN;
  const signup = await agent.post('/api/auth/signup', {
    email: `bench-${Date.now()}@example.test`,
    password: 'correct horse battery',
    organizationName: 'Bench',
  });
  if (signup.status !== 201) throw new Error(`signup failed: ${signup.status} ${signup.text}`);

  async function listOf(emails: string[], name: string): Promise<string> {
    const list = await agent.post('/api/lists', { name });
    for (let i = 0; i < emails.length; i += 1000) {
      const res = await agent.post(`/api/lists/${list.body.id}/leads`, {
        leads: emails.slice(i, i + 1000).map((email) => ({ email })),
      });
      if (res.status !== 201) throw new Error(`leads failed: ${res.status} ${res.text}`);
    }
    return list.body.id as string;
  }

  async function run(listId: string) {
    const created = await agent.post('/api/verification/jobs', { listId, verificationMethod: 'smtp_only' });
    if (created.status !== 201) throw new Error(`job failed: ${created.status} ${created.text}`);
    const jobId = created.body.id as string;
    for (;;) {
      const [row] = await orm.em
        .fork()
        .execute(`select verification_stage, created_at, completed_at from verification_job where id = ?`, [
          jobId,
        ]);
      if (row?.verification_stage === 'completed')
        return {
          jobId,
          started: new Date(row.created_at).getTime(),
          ended: new Date(row.completed_at).getTime(),
        };
      if (row?.verification_stage === 'failed') throw new Error(`job ${jobId} failed`);
      await sleep(50);
    }
  }

  step('warm-up job');
  // Every host once, so neither measurement pays for first contacts (TLS, JIT, pool connections).
  await run(await listOf(addresses(Math.min(2 * DOMAINS, ADDRESSES), DOMAINS), 'warm-up'));

  // The same addresses through the prober alone: what this machine's fleet and prober allow at best.
  step('prober alone (no database, no Temporal)');
  const byDomain = new Map<string, string[]>();
  for (const email of addresses(ADDRESSES, DOMAINS)) {
    const domain = email.slice(email.indexOf('@') + 1);
    byDomain.set(domain, [...(byDomain.get(domain) ?? []), email]);
  }
  const bareStart = Date.now();
  await Promise.all([...byDomain].map(([domain, emails]) => probeDomain(domain, emails)));
  const bareMs = Date.now() - bareStart;

  step(`job of ${ADDRESSES.toLocaleString('en')} addresses over ${DOMAINS} domains`);
  const listId = await listOf(addresses(ADDRESSES, DOMAINS), 'bench');
  smtpIntervals.length = 0;
  connectionSamples = 0;
  connectionSum = 0;
  const before = await ask<{ sessions: number; rcpts: number }>('stats');
  const { jobId, started, ended } = await run(listId);
  const after = await ask<{ sessions: number; rcpts: number; dataCommands: number }>('stats');

  const job = (await agent.get(`/api/verification/jobs/${jobId}`)).body;
  const expectedValid = addresses(ADDRESSES, DOMAINS).filter((e) => e.startsWith('user')).length;
  if (job.smtpValidCount !== expectedValid || job.smtpInvalidCount !== ADDRESSES - expectedValid) {
    throw new Error(`wrong results: ${JSON.stringify(job)}`);
  }
  const { events } = await temporal.env.client.workflow.getHandle(`verification-${jobId}`).fetchHistory();
  const historyEvents = events?.length ?? 0;

  const wallMs = ended - started;
  const rate = ADDRESSES / (wallMs / 1000);
  const ceiling = config.SMTP_PROBE_CONCURRENCY / (LATENCY_MS / 1000);
  const inside = smtpIntervals
    .filter(([s, e]) => e >= started && s <= ended)
    .map(([s, e]): [number, number] => [Math.max(s, started), Math.min(e, ended)]);
  const smtpMs = unionLength(inside);
  const outside = (wallMs - smtpMs) / wallMs;
  const verdict = (ok: boolean) => (ok ? 'OK' : 'MISSED');

  console.log(
    `\nverification benchmark (load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${os.availableParallelism()} cores)`,
  );
  console.log(
    `  addresses                 ${ADDRESSES.toLocaleString('en')} over ${DOMAINS} domains, ${LATENCY_MS} ms per reply, concurrency ${config.SMTP_PROBE_CONCURRENCY}, ${config.SMTP_PROBE_PER_DOMAIN} per host`,
  );
  const firstProbe = Math.min(...inside.map(([s]) => s)) - started;
  const lastProbe = ended - Math.max(...inside.map(([, e]) => e));
  console.log(
    `  wall time                 ${(wallMs / 1000).toFixed(2)} s (job created → completed); first probe after ${firstProbe} ms, completed ${lastProbe} ms after the last`,
  );
  console.log(`  throughput                ${Math.round(rate).toLocaleString('en')} addresses/s`);
  console.log(
    `  vs ceiling                ${(rate / ceiling).toFixed(2)} of ${Math.round(ceiling).toLocaleString('en')}/s (concurrency / latency): ${verdict(rate / ceiling >= CEILING_SHARE_TARGET)} (target ≥ ${CEILING_SHARE_TARGET})`,
  );
  console.log(
    `  prober alone              ${Math.round(ADDRESSES / (bareMs / 1000)).toLocaleString('en')} addresses/s, ${(ADDRESSES / (bareMs / 1000) / ceiling).toFixed(2)} of the ceiling: the job reaches ${(rate / (ADDRESSES / (bareMs / 1000))).toFixed(2)} of it`,
  );
  console.log(
    `  outside SMTP              ${(outside * 100).toFixed(1)}% of wall time (${((wallMs - smtpMs) / 1000).toFixed(2)} s with no probe running): ${verdict(outside < ORCHESTRATION_LIMIT)} (target < ${ORCHESTRATION_LIMIT * 100}%)`,
  );
  console.log(
    `  SMTP connections          ${(connectionSum / Math.max(1, connectionSamples)).toFixed(1)} open on average while probing; ${after.sessions - before.sessions} sessions, ${after.rcpts - before.rcpts} RCPTs, ${after.dataCommands} DATA`,
  );
  console.log(
    `  workflow history          ${historyEvents} events: ${verdict(historyEvents < HISTORY_LIMIT)} (target < ${HISTORY_LIMIT})`,
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
