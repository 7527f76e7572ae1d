/**
 * `npm run bench -- verification`: smtp_only jobs as a user sees them (POST → `completed` seen by GET),
 * against a fleet whose every reply comes after BENCH_VERIFY_LATENCY_MS (L, default 20 ms), with the
 * default SMTP limits (SMTP_PROBE_CONCURRENCY 100, built-in provider table). Each figure is a ratio to the
 * ceiling concurrency / L, next to the same run's time with SMTP work in progress:
 *
 * - history:  before flat and shared, BENCH_VERIFY_HISTORY_LEADS (300,000) leads of other lists, of which
 *             BENCH_VERIFY_HISTORY_JOB (100,000) verified by an earlier job through the API, over 200 hosts of their own
 *             (BENCH_VERIFY_HISTORY_JOB=0: an empty database);
 * - flat:     10,000 addresses over 200 domains, each on its own MX host (target ≥ 0.8), next to the
 *             floor the fleet itself allows: the same sessions with nothing but their round trips, and where the
 *             job's time went beside the floor's (to its first session, the sessions' openings and transactions,
 *             the wait of a freed slot, the end); before it a 20-address job. For both, the completion path: from the last result written to `completed`
 *             committed, and to its first sight by the poll and by the job's event stream (SSE);
 * - shared:   the same, half the domains on one MX host that advertises PIPELINING and answers each
 *             command L after it arrived (round-trip bound); never more sessions to it than its limit
 *             (target ≥ 0.6);
 * - large:    BENCH_VERIFY_LARGE addresses (100,000) over BENCH_VERIFY_LARGE_HOSTS hosts (2,000) on a database
 *             already holding 1,000,000 leads of other lists (and the history's, when flat or shared ran first)
 *             (target ≥ 0.7 of the ceiling), next to the floor
 *             of the same sessions (target ≥ 0.85), with the history events of every workflow run and the
 *             peak RSS of the process (API + worker) while the job runs. Issue 21's 1,000,000-address job:
 *             BENCH_VERIFY_ONLY=large BENCH_VERIFY_LARGE=1000000 BENCH_VERIFY_LARGE_HOSTS=10000;
 * - fairness: a 20-address job of another organization started while the large job runs (target ≤ 5 s).
 * - egress:   shared MX under one politeness budget (CONTRACT §11): half of 80 domains on one host without
 *             PIPELINING (so its limit of 2 per source address bounds the job), run by a service process
 *             and 0 or 2 more `ROLE=worker` processes on one task queue, with 1 egress (the system's source
 *             address), 4 (SMTP_SOURCE_ADDRESSES=127.0.0.11-14), and 2 under 3 workers; the fleet checks it never
 *             saw more than 2 connections from one address, each counted from accept until it closed. Targets: 4 egresses ≥ 3× 1 egress; 3 workers on 1 egress not
 *             below 1 worker. BENCH_VERIFY_EGRESS_PER_DOMAIN (default 50) sizes it.
 *
 * BENCH_VERIFY_ONLY=flat,shared,large limits the scenarios (fairness runs with large). The fleet runs in a
 * process of its own; the API and the real worker run here. Needs PostgreSQL at TEST_DATABASE_URL (admin,
 * to create a scratch database) and the Temporal CLI (TEMPORAL_CLI_PATH or a cached build).
 */
import { forkChild } from './support/child.ts';
import { Resolver } from 'node:dns/promises';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createActivityDeps } from '../activities/deps.ts';
import { loadConfig } from '../src/config.ts';
import { initOrm } from '../src/db/orm.ts';
import { createApp } from '../src/http/app.ts';
import { startIntegrationAccess } from '../src/integration-access.ts';
import { setLogLevel } from '../src/log.ts';
import { createWorker } from '../src/worker.ts';
import { Agent } from '../test/support/agent.ts';
import { createScratchDatabase, LOCAL_ADMIN_URL, startScratchTemporal } from '../test/support/scratch.ts';
import { startServiceProcess } from '../test/support/worker-process.ts';
import { bareSessions } from './support/bare-sessions.ts';
import { cpuLine, cpuSample } from './support/cpu-use.ts';
import { historyOf } from '../test/support/history.ts';
import type { FleetGroup, FleetSession } from './support/mail-fleet.ts';

const LATENCY_MS = Number(process.env.BENCH_VERIFY_LATENCY_MS ?? 20);
const ONLY = new Set((process.env.BENCH_VERIFY_ONLY ?? 'flat,shared,large,egress').split(','));
const OTHER_LEADS = Number(process.env.BENCH_VERIFY_OTHER_LEADS ?? 1_000_000);
const HISTORY_LEADS = Number(process.env.BENCH_VERIFY_HISTORY_LEADS ?? 300_000);
const HISTORY_JOB = Math.min(HISTORY_LEADS, Number(process.env.BENCH_VERIFY_HISTORY_JOB ?? 100_000));
const LARGE = Number(process.env.BENCH_VERIFY_LARGE ?? 100_000);
const LARGE_HOSTS = Number(process.env.BENCH_VERIFY_LARGE_HOSTS ?? 2_000);
const SHARED_HOST = process.env.BENCH_VERIFY_SHARED_HOST ?? 'mx.shared.bench';
const ORIGIN = 'http://bench.local';
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? LOCAL_ADMIN_URL;

const EGRESS_HOST = 'mx.egress.bench';
const GROUPS: Record<'history' | 'flat' | 'shared' | 'large' | 'egress', FleetGroup> = {
  history: { prefix: 'h', domains: 200, perDomain: Math.ceil(HISTORY_JOB / 200) },
  flat: { prefix: 'f', domains: 200, perDomain: 50 },
  shared: { prefix: 's', domains: 200, perDomain: 50, shared: 100, sharedHost: SHARED_HOST },
  large: { prefix: 'l', domains: LARGE_HOSTS, perDomain: Math.ceil(LARGE / LARGE_HOSTS) },
  egress: {
    prefix: 'e',
    domains: 80,
    perDomain: Number(process.env.BENCH_VERIFY_EGRESS_PER_DOMAIN ?? 50),
    shared: 40,
    sharedHost: EGRESS_HOST,
    sharedPipelining: false,
  },
};

const cleanups: Array<() => Promise<unknown>> = [];
const report: string[] = [];
interface FleetHosts {
  hostPeaks: Record<string, [number, number]>;
  hostVerbs: Record<string, Record<string, number>>;
}

/** How late the fleet's event loop ran over a stretch (mean and 99th percentile of its timer delays). */
interface FleetLag {
  meanMs: number;
  p99Ms: number;
}

const lagText = (lag: FleetLag) => `${lag.meanMs.toFixed(1)} ms on average (p99 ${lag.p99Ms.toFixed(0)} ms)`;

/** The commands `hosts` received between two stats, by verb, most first. */
function verbsBetween(before: FleetHosts, after: FleetHosts, hosts: string[]): string {
  const totals = new Map<string, number>();
  for (const host of hosts)
    for (const [verb, n] of Object.entries(after.hostVerbs[host] ?? {})) totals.set(verb, (totals.get(verb) ?? 0) + n - (before.hostVerbs[host]?.[verb] ?? 0));
  return [...totals].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]).map(([verb, n]) => `${verb} ${n}`).join(', ');
}

const step = (text: string) => console.log(`· ${text}`);

/** `count` addresses spread evenly over a group's domains, alternating existing and non-existing mailboxes. */
function addresses(group: FleetGroup, count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const domain = `${group.prefix}${i % group.domains}.bench`;
    const round = Math.floor(i / group.domains);
    return round % 2 === 0 ? `user${round / 2}@${domain}` : `nobody${(round - 1) / 2}@${domain}`;
  });
}

/** The same addresses as `addresses`, as SQL over generate_series(0, count - 1) `g` (no list in this process). */
const addressSql = (group: FleetGroup) =>
  `case when (g / ${group.domains}) % 2 = 0 then 'user' || (g / ${group.domains} / 2) else 'nobody' || ((g / ${group.domains} - 1) / 2) end
   || '@${group.prefix}' || (g % ${group.domains}) || '.bench'`;

/** How many of `addresses(group, count)` exist (`user…`): rounds 0, 2, 4, … of `group.domains` each. */
const validOf = (group: FleetGroup, count: number) => {
  let valid = 0;
  for (let round = 0; round * group.domains < count; round += 2) valid += Math.min(group.domains, count - round * group.domains);
  return valid;
};

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

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/**
 * How sessions' time went, by the fleet's clock: from `start` to the first accept; medians of the opening (accept →
 * first MAIL FROM) and of the transactions (→ close); and how long a slot freed by a close stayed empty (the k-th
 * close to the (concurrency + k)-th accept, the session that could only begin once one had ended).
 */
function sessionPhases(sessions: FleetSession[], start: number, concurrency: number) {
  const done = sessions.filter((s): s is [number, number, number] => s[1] !== null && s[2] !== null);
  const accepts = done.map(([accepted]) => accepted).sort((a, b) => a - b);
  const closes = done.map(([, , closed]) => closed).sort((a, b) => a - b);
  return {
    first: (accepts[0] ?? Number.NaN) - start,
    opening: median(done.map(([accepted, mail]) => mail - accepted)),
    transactions: median(done.map(([, mail, closed]) => closed - mail)),
    handoff: median(accepts.slice(concurrency).map((accepted, k) => accepted - (closes[k] ?? Number.NaN))),
    lastClose: closes.at(-1) ?? Number.NaN,
  };
}

try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  setLogLevel('error');

  step('scratch database');
  const db = await createScratchDatabase(ADMIN_URL, 'bench_verify');
  cleanups.push(db.drop);
  const orm = await initOrm(db.url);
  cleanups.unshift(() => orm.close());
  const sql = (query: string, params: unknown[] = []) => orm.em.fork().execute(query, params);

  step('Temporal dev server');
  const temporal = await startScratchTemporal();
  cleanups.unshift(temporal.teardown);

  const withHistory = (ONLY.has('flat') || ONLY.has('shared')) && HISTORY_LEADS > 0;
  const groups = (['flat', 'shared', 'large', 'egress'] as const).filter((g) => ONLY.has(g)).map((g) => GROUPS[g]);
  if (withHistory && HISTORY_JOB > 0) groups.unshift(GROUPS.history);
  step(`SMTP fleet: ${groups.map((g) => `${g.domains} ${g.prefix}-domains`).join(', ')}; ${LATENCY_MS} ms per reply`);
  const fleet = forkChild('support/mail-fleet.ts', { env: { ...process.env, FLEET_GROUPS: JSON.stringify(groups), FLEET_LATENCY_MS: String(LATENCY_MS) } });
  cleanups.unshift(fleet.stop);
  const ask = fleet.ask;
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
  const ceiling = config.SMTP_PROBE_CONCURRENCY / (LATENCY_MS / 1000);

  step('worker (workflow bundle)');
  const deps = createActivityDeps(config, orm);
  // Every probeDomain call is an interval of SMTP work, with the job it was for (its owner).
  const smtpIntervals: Array<[number, number, string | undefined]> = [];
  const probeDomain = deps.prober.probeDomain.bind(deps.prober);
  deps.prober.probeDomain = async (...args) => {
    const start = Date.now();
    try {
      return await probeDomain(...args);
    } finally {
      smtpIntervals.push([start, Date.now(), args[2]?.owner]);
    }
  };
  // Whose CPU the processors' lines name: everything else is counted by its command name.
  const processes = new Map([[process.pid, 'service (API + worker)'], [fleet.process.pid!, 'fleet']]);
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
  async function signup(name: string): Promise<Agent> {
    const agent = new Agent(app);
    agent.origin = ORIGIN;
    const res = await agent.post('/api/auth/signup', {
      email: `bench-${name}-${Date.now()}@example.test`,
      password: 'correct horse battery',
      organizationName: name,
    });
    if (res.status !== 201) throw new Error(`signup failed: ${res.status} ${res.text}`);
    return agent;
  }
  const agent = await signup('Bench');

  /** A list created through the API, its leads inserted set-based (the upload path is not what is measured). */
  async function listOf(owner: Agent, emails: string[], name: string): Promise<string> {
    const list = await owner.post('/api/lists', { name });
    if (list.status !== 201) throw new Error(`list failed: ${list.status} ${list.text}`);
    for (let i = 0; i < emails.length; i += 50_000) {
      await sql(
        `insert into lead (id, organization_id, list_id, email, source, created_at, updated_at)
         select gen_random_uuid(), l.organization_id, l.id, e, 'manual', now(), now()
         from lead_list l, jsonb_array_elements_text(?::jsonb) e where l.id = ?`,
        [JSON.stringify(emails.slice(i, i + 50_000)), list.body.id],
      );
    }
    return list.body.id as string;
  }

  /** A list of `addresses(group, count)`, generated in the database: the bench's memory stays out of the figures. */
  async function generatedList(owner: Agent, group: FleetGroup, count: number, name: string): Promise<string> {
    const list = await owner.post('/api/lists', { name });
    if (list.status !== 201) throw new Error(`list failed: ${list.status} ${list.text}`);
    await sql(
      `insert into lead (id, organization_id, list_id, email, source, created_at, updated_at)
       select gen_random_uuid(), l.organization_id, l.id, ${addressSql(group)}, 'manual', now(), now()
       from lead_list l, generate_series(0, ? - 1) g where l.id = ?`,
      [count, list.body.id],
    );
    return list.body.id as string;
  }

  /** `count` leads of a list of their own, none on a bench host, inserted set-based. */
  async function otherLeads(count: number, name: string): Promise<void> {
    const list = await agent.post('/api/lists', { name });
    if (list.status !== 201) throw new Error(`list failed: ${list.status} ${list.text}`);
    await sql(
      `insert into lead (id, organization_id, list_id, email, source, created_at, updated_at)
       select gen_random_uuid(), l.organization_id, l.id, 'someone' || g || '@elsewhere.example', 'manual', now(), now()
       from lead_list l, generate_series(1, ?) g where l.id = ?`,
      [count, list.body.id],
    );
  }

  /** When the job's event stream (SSE, read as a browser reads it) shows `completed`. */
  async function sseCompleted(owner: Agent, jobId: string): Promise<number> {
    const cookie = [...owner.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await owner.app.request(`/api/verification/jobs/${jobId}/events`, { headers: { cookie } });
    if (res.status !== 200 || !res.body) throw new Error(`events: ${res.status}`);
    const decoder = new TextDecoder();
    let text = '';
    for await (const chunk of res.body) {
      text += decoder.decode(chunk, { stream: true });
      if (/^event: stage\ndata: .*"verificationStage":"completed"/m.test(text)) {
        const seen = Date.now();
        void res.body.cancel().catch(() => undefined);
        return seen;
      }
    }
    throw new Error(`events of ${jobId} ended without completed`);
  }

  /**
   * POST the job, then GET it every POLL_MS until it shows `completed`: the time the user waits. An event stream
   * opened at once watches it too.
   */
  const POLL_MS = 20;
  async function clientRun(owner: Agent, listId: string) {
    const started = Date.now();
    const created = await owner.post('/api/verification/jobs', { listId, verificationMethod: 'smtp_only' });
    if (created.status !== 201) throw new Error(`job failed: ${created.status} ${created.text}`);
    const jobId = created.body.id as string;
    const answered = Date.now();
    const sse = sseCompleted(owner, jobId);
    for (;;) {
      const job = (await owner.get(`/api/verification/jobs/${jobId}`)).body;
      if (job.verificationStage === 'completed') return { jobId, job, started, answered, ended: Date.now(), sse: await sse };
      if (job.verificationStage === 'failed') throw new Error(`job ${jobId} failed: ${job.failureReason}`);
      await sleep(POLL_MS);
    }
  }

  /** From the POST sent to the job's first address asked, by the prober's own clock. */
  function firstAskedMs(run: Awaited<ReturnType<typeof clientRun>>): number {
    const starts = smtpIntervals.filter(([, , owner]) => owner === run.jobId).map(([s]) => s);
    return Math.min(...starts) - run.started;
  }

  /**
   * From the job's last result written (its latest check time in the database) to `completed` committed (the job's
   * `completed_at`, stamped just before the commit) and to its first sight by the poll and by the event stream.
   */
  async function completionLine(name: string, run: Awaited<ReturnType<typeof clientRun>>) {
    const [row] = await sql(
      `select extract(epoch from greatest(max(r.smtp_checked_at), max(r.checked_at))) * 1000 as last_result,
              extract(epoch from j.completed_at) * 1000 as completed
       from verification_job j join verification_result r on r.job_id = j.id where j.id = ? group by j.completed_at`,
      [run.jobId],
    );
    const lastResult = Number(row!.last_result);
    const lastProbe = Math.max(...smtpIntervals.filter(([, , owner]) => owner === run.jobId).map(([, e]) => e));
    const ms = (t: number) => `${Math.round(t - lastResult)} ms`;
    report.push(
      `  ${name.padEnd(9)} last result written → \`completed\` committed ${ms(Number(row!.completed))}, seen by the poll (every ${POLL_MS} ms) ${ms(run.ended)}, by the event stream ${ms(run.sse)} (last probe answered ${ms(lastProbe)})`,
    );
  }

  function smtpMsWithin(started: number, ended: number): number {
    return unionLength(
      smtpIntervals
        .filter(([s, e]) => e >= started && s <= ended)
        .map(([s, e]): [number, number] => [Math.max(s, started), Math.min(e, ended)]),
    );
  }

  const ratioLine = (name: string, count: number, run: { started: number; ended: number }, target: number) => {
    const wallMs = run.ended - run.started;
    const rate = count / (wallMs / 1000);
    const smtpMs = smtpMsWithin(run.started, run.ended);
    report.push(
      `  ${name.padEnd(9)} ${count.toLocaleString('en')} addresses in ${(wallMs / 1000).toFixed(2)} s client-observed = ${Math.round(rate)}/s = ${(rate / ceiling).toFixed(2)} of the ceiling (target ≥ ${target}: ${rate / ceiling >= target ? 'OK' : 'MISSED'}); SMTP work in progress ${(smtpMs / 1000).toFixed(2)} s (${(count / (smtpMs / 1000) / ceiling).toFixed(2)} of the ceiling)`,
    );
  };

  if (withHistory) {
    // As a service in use holds: other lists' leads, and the results of an earlier job run through the API.
    step(`history: ${HISTORY_LEADS.toLocaleString('en')} leads of other lists, ${HISTORY_JOB.toLocaleString('en')} of them verified by an earlier job`);
    const earlier = HISTORY_JOB > 0 ? await clientRun(agent, await generatedList(agent, GROUPS.history, HISTORY_JOB, 'history')) : null;
    await otherLeads(HISTORY_LEADS - HISTORY_JOB, 'history, not verified');
    // The seeding's burst of WAL would otherwise start a checkpoint inside the next job: a database that already holds
    // these rows has written them out long before.
    await sql('checkpoint');
    report.push(
      `  history   the flat and shared jobs ran on a database holding ${HISTORY_LEADS.toLocaleString('en')} leads of other lists and the ${HISTORY_JOB.toLocaleString('en')} results of an earlier job${earlier ? ` (${((earlier.ended - earlier.started) / 1000).toFixed(1)} s)` : ''}`,
    );
  }

  for (const name of ['flat', 'shared'] as const) {
    if (!ONLY.has(name)) continue;
    const group = GROUPS[name];
    const count = group.domains * group.perDomain;
    step(`${name}: warm-up job (every host once)`);
    await clientRun(agent, await listOf(agent, addresses(group, 2 * group.domains), `${name} warm-up`));
    if (name === 'flat') {
      step('flat: job of 20 addresses');
      await completionLine('small', await clientRun(agent, await listOf(agent, addresses(group, 20), 'small')));
    }
    step(`${name}: job of ${count.toLocaleString('en')} addresses`);
    const listId = await listOf(agent, addresses(group, count), name);
    const hostsBefore = await ask<FleetHosts>('stats');
    await ask<FleetLag>('lag');
    await ask<{ sessions: FleetSession[] }>('sessions');
    const cpuBefore = await cpuSample(processes);
    const run = await clientRun(agent, listId);
    const cpuAfter = await cpuSample(processes);
    const jobLag = await ask<FleetLag>('lag');
    const expectedValid = addresses(group, count).filter((e) => e.startsWith('user')).length;
    if (run.job.smtpValidCount !== expectedValid || run.job.smtpInvalidCount !== count - expectedValid) {
      const reasons = await sql(
        `select result, left(reason, 80) as reason, count(*)::int as n from verification_result
         where job_id = ? and result not in ('Valid', 'Invalid') group by 1, 2 order by 3 desc limit 5`,
        [run.jobId],
      );
      throw new Error(`wrong results: ${JSON.stringify(run.job)} ${JSON.stringify(reasons)}`);
    }
    ratioLine(name, count, run, name === 'flat' ? 0.8 : 0.6);
    report.push(
      `            POST answered in ${((run.answered - run.started) / 1000).toFixed(2)} s, its first address asked ${(firstAskedMs(run) / 1000).toFixed(2)} s after the POST was sent`,
      `            ${cpuLine(cpuBefore, cpuAfter, run.ended - run.started)}`,
    );
    await completionLine('', run);
    if (name === 'flat') {
      const resolver = new Resolver();
      resolver.setServers(world.dnsServers);
      const byDomain = Map.groupBy(addresses(group, count), (a) => a.slice(a.indexOf('@') + 1));
      const domains = await Promise.all(
        [...byDomain].map(async ([domain, list]) => ({ domain, addresses: list, ip: (await resolver.resolve4(`mx.${domain}`))[0]! })),
      );
      const hostsAfter = await ask<FleetHosts>('stats');
      const flatHosts = Object.keys(hostsAfter.hostPeaks).filter((h) => h.startsWith(`mx.${group.prefix}`));
      const sessions = flatHosts.reduce((n, h) => n + hostsAfter.hostPeaks[h]![1] - (hostsBefore.hostPeaks[h]?.[1] ?? 0), 0);
      report.push(
        `            the job's sessions: ${sessions} over ${flatHosts.length} hosts, at most ${Math.max(...flatHosts.map((h) => hostsAfter.hostPeaks[h]![0]))} at once on one host`,
        `            the job's commands (STARTTLS's second EHLO included): ${verbsBetween(hostsBefore, hostsAfter, flatHosts)}`,
      );
      const job = sessionPhases((await ask<{ sessions: FleetSession[] }>('sessions')).sessions, run.started, config.SMTP_PROBE_CONCURRENCY);
      const floorMs = await bareSessions(world.port, domains, config.SMTP_PROBE_CONCURRENCY);
      const floorRate = count / (floorMs / 1000);
      report.push(
        `            floor: the same sessions with nothing but their round trips (greeting, EHLO, one pipelined transaction, QUIT), ${config.SMTP_PROBE_CONCURRENCY} at a time: ${(floorMs / 1000).toFixed(2)} s = ${(floorRate / ceiling).toFixed(2)} of the ceiling; the job's SMTP work at ${((floorMs / smtpMsWithin(run.started, run.ended)) * 100).toFixed(0)} % of it, client-observed at ${((floorMs / (run.ended - run.started)) * 100).toFixed(0)} %`,
      );
      // The fleet offers STARTTLS and the service takes it: the same floor through TLS says what that costs here.
      await ask<FleetLag>('lag');
      await ask<{ sessions: FleetSession[] }>('sessions');
      const tlsFloorStart = performance.timeOrigin + performance.now();
      const tlsFloorMs = await bareSessions(world.port, domains, config.SMTP_PROBE_CONCURRENCY, true);
      const floorLag = await ask<FleetLag>('lag');
      const floor = sessionPhases((await ask<{ sessions: FleetSession[] }>('sessions')).sessions, tlsFloorStart, config.SMTP_PROBE_CONCURRENCY);
      const ms = (job: number, floor: number) => `${Math.round(job)} / ${Math.round(floor)} ms`;
      report.push(
        `            the same floor through STARTTLS (as the service's sessions go): ${(tlsFloorMs / 1000).toFixed(2)} s; client-observed at ${((tlsFloorMs / (run.ended - run.started)) * 100).toFixed(0)} % of it`,
        `            the fleet's event loop ran late by ${lagText(jobLag)} during the job, ${lagText(floorLag)} during this floor (each reply is a ${LATENCY_MS} ms timer there)`,
        `            where the time went, the job / this floor (the fleet's clock, medians): the first session accepted ${ms(job.first, floor.first)} after the start; opening (accept → MAIL FROM: the greeting, which smtp-server holds 100 ms for early talkers before its L, then EHLO, STARTTLS, EHLO) ${ms(job.opening, floor.opening)}; transactions (MAIL FROM → close) ${ms(job.transactions, floor.transactions)}; a slot freed by a close taken by the next session's accept ${ms(job.handoff, floor.handoff)} later; the last close to \`completed\` seen ${Math.round(run.ended - job.lastClose)} ms`,
      );
    }
    if (name === 'shared') {
      const stats = await ask<{ sharedPeaks: Record<string, number> }>('stats');
      const peak = stats.sharedPeaks[SHARED_HOST] ?? 0;
      report.push(
        `            ${SHARED_HOST}: at most ${peak} sessions at once (its limit: ${deps.prober.providerLimits('other').connections} for an unrecognised host)`,
      );
    }
  }

  if (ONLY.has('large')) {
    const group = GROUPS.large;
    step(`large: ${OTHER_LEADS.toLocaleString('en')} leads of other lists (set-based, not analyzed)`);
    await otherLeads(OTHER_LEADS, 'other leads');
    step('large: warm-up job (every host once)');
    await clientRun(agent, await generatedList(agent, group, 2 * group.domains, 'large warm-up'));
    // The floor of the first-address wait: a list written whole before the POST answers, the same path after it.
    const tiny = await clientRun(agent, await generatedList(agent, group, 20, 'large floor'));
    const listId = await generatedList(agent, group, LARGE, 'large');
    const small = await signup('Small');
    const smallList = await generatedList(small, group, 20, 'small');
    step(`large: job of ${LARGE.toLocaleString('en')} addresses over ${group.domains.toLocaleString('en')} hosts, and a 20-address job of another organization 3 s in`);
    // The process's RSS while the job runs (the API and the worker are both here; the lists are in the database).
    const fleetBefore = await ask<{ sessions: number; rcpts: number }>('stats');
    const rssBefore = process.memoryUsage.rss();
    let peakRss = rssBefore;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 50);
    const cpuBefore = await cpuSample(processes);
    const largeRun = clientRun(agent, listId);
    await sleep(3_000);
    const smallRun = await clientRun(small, smallList);
    const run = await largeRun.finally(() => clearInterval(sampler));
    const cpuAfter = await cpuSample(processes);
    const expectedValid = validOf(group, LARGE);
    if (run.job.smtpValidCount !== expectedValid || run.job.smtpInvalidCount !== LARGE - expectedValid)
      throw new Error(`wrong results: ${JSON.stringify(run.job)}`);
    ratioLine('large', LARGE, run, 0.7);
    report.push(`            ${cpuLine(cpuBefore, cpuAfter, run.ended - run.started)}`);
    // The fleet's own count of what the two jobs cost it; the floor makes one session and one RCPT more per host.
    const fleetAfter = await ask<{ sessions: number; rcpts: number }>('stats');
    const within = smtpIntervals.filter(([s, e, owner]) => owner === run.jobId && e >= run.started && s <= run.ended);
    const lastSmtp = Math.max(...within.map(([, e]) => e));
    const first = firstAskedMs(run);
    report.push(
      `            POST answered in ${((run.answered - run.started) / 1000).toFixed(2)} s, its first address asked ${(first / 1000).toFixed(2)} s after the POST was sent (target ≤ 1 s: ${first <= 1_000 ? 'OK' : 'MISSED'}; floor: a 20-address job's first address ${(firstAskedMs(tiny) / 1000).toFixed(2)} s after its POST, answered in ${((tiny.answered - tiny.started) / 1000).toFixed(2)} s); its last answer to \`completed\` seen ${((run.ended - lastSmtp) / 1000).toFixed(2)} s`,
    );
    const sessions = fleetAfter.sessions - fleetBefore.sessions;
    const rcpts = fleetAfter.rcpts - fleetBefore.rcpts;
    report.push(
      `            the fleet saw ${sessions.toLocaleString('en')} sessions (${(sessions / group.domains).toFixed(2)} per host; the floor: 1) and ${rcpts.toLocaleString('en')} RCPTs (${(rcpts / (LARGE + 20)).toFixed(3)} per address; the floor: ${((LARGE + group.domains) / LARGE).toFixed(3)})`,
    );
    const events = await historyOf(temporal.env.client, `verification-${run.jobId}`);
    const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
    report.push(
      `            history ${events.reduce((a, b) => a + b, 0)} events over ${events.length} run(s), at most ${Math.max(...events)} per run (target < 2,000: ${Math.max(...events) < 2_000 ? 'OK' : 'MISSED'}); peak RSS during the job ${mb(peakRss)} MB (${mb(rssBefore)} MB at its start; API + worker process), lifetime peak ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`,
    );
    const fairMs = smallRun.ended - smallRun.started;
    const smallProbes = smtpIntervals.filter(([, , owner]) => owner === smallRun.jobId);
    const sinceSmall = (t: number) => `${((t - smallRun.started) / 1000).toFixed(2)} s`;
    report.push(
      `  fairness  20-address job completed ${(fairMs / 1000).toFixed(2)} s after its POST while the large job ran (target ≤ 5 s: ${fairMs <= 5_000 ? 'OK' : 'MISSED'}); after its POST: answered ${sinceSmall(smallRun.answered)}, first domain asked ${sinceSmall(Math.min(...smallProbes.map(([s]) => s)))}, last domain answered ${sinceSmall(Math.max(...smallProbes.map(([, e]) => e)))}`,
    );
    step('large: floor (bare sessions over the same addresses)');
    const resolver = new Resolver();
    resolver.setServers(world.dnsServers);
    const byDomain = [...Map.groupBy(addresses(group, LARGE), (a) => a.slice(a.indexOf('@') + 1))];
    // A few hundred lookups at a time: 10,000 at once overrun the fleet's resolver.
    const domains = [];
    for (let i = 0; i < byDomain.length; i += 200) {
      domains.push(
        ...(await Promise.all(
          byDomain
            .slice(i, i + 200)
            .map(async ([domain, list]) => ({ domain, addresses: list, ip: (await resolver.resolve4(`mx.${domain}`))[0]! })),
        )),
      );
    }
    const floorMs = await bareSessions(world.port, domains, config.SMTP_PROBE_CONCURRENCY);
    const floorRate = LARGE / (floorMs / 1000);
    const clientRate = LARGE / ((run.ended - run.started) / 1000);
    report.push(
      `            floor: the same sessions with nothing but their round trips, ${config.SMTP_PROBE_CONCURRENCY} at a time: ${(floorMs / 1000).toFixed(2)} s = ${(floorRate / ceiling).toFixed(2)} of the ceiling; the job client-observed at ${(clientRate / floorRate).toFixed(2)} of it (target ≥ 0.85: ${clientRate / floorRate >= 0.85 ? 'OK' : 'MISSED'})`,
    );
  }

  if (ONLY.has('egress')) {
    const group = GROUPS.egress;
    const count = group.domains * group.perDomain;
    const emails = addresses(group, count);
    const onHost = emails.filter((e) => Number(/^\D+\d+@e(\d+)\./.exec(e)?.[1]) < (group.shared ?? 0)).length;
    const runs: Record<string, number> = {};
    for (const [egresses, workers] of [
      [1, 1],
      [1, 3],
      [4, 1],
      [4, 3],
      // CONTRACT §11's connection rule: the fleet counts each address's connections until they close.
      [2, 3],
    ] as const) {
      const label = `${egresses} egress${egresses > 1 ? 'es' : ''}, ${workers} worker${workers > 1 ? 's' : ''}`;
      step(`egress: ${label}: starting the processes`);
      const env: Record<string, string> = {
        DATABASE_URL: db.url,
        TEMPORAL_ADDRESS: temporal.address,
        TEMPORAL_TASK_QUEUE: `bench-egress-${egresses}-${workers}-${Date.now()}`,
        APP_ORIGINS: ORIGIN,
        SMTP_PROBE_PORT: String(world.port),
        DNS_SERVERS: world.dnsServers.join(','),
        SMTP_PROBE_HELO: 'bench.local',
        RATE_LIMIT_BURST: '1000000',
        SIGNUP_PER_HOUR: '1000',
        ...(egresses > 1 ? { SMTP_SOURCE_ADDRESSES: Array.from({ length: egresses }, (_, i) => `127.0.0.${11 + i}`).join(',') } : {}),
      };
      const processes = await Promise.all([
        startServiceProcess(env, 'all'),
        ...Array.from({ length: workers - 1 }, () => startServiceProcess(env, 'worker')),
      ]);
      try {
        const service = processes[0]!;
        const client = new Agent({ request: (input, init) => fetch(`${service.url}${input}`, init) });
        client.origin = ORIGIN;
        const signed = await client.post('/api/auth/signup', {
          email: `bench-egress-${egresses}-${workers}-${Date.now()}@example.test`,
          password: 'correct horse battery',
          organizationName: 'Egress',
        });
        if (signed.status !== 201) throw new Error(`signup failed: ${signed.status} ${signed.text}`);
        const listId = await listOf(client, emails, label);
        step(`egress: ${label}: job of ${count.toLocaleString('en')} addresses (${onHost.toLocaleString('en')} on ${EGRESS_HOST})`);
        const run = await clientRun(client, listId);
        const expectedValid = emails.filter((e) => e.startsWith('user')).length;
        if (run.job.smtpValidCount !== expectedValid || run.job.smtpInvalidCount !== count - expectedValid)
          throw new Error(`wrong results: ${JSON.stringify(run.job)}`);
        const rate = count / ((run.ended - run.started) / 1000);
        runs[label] = rate;
        const stats = await ask<{ sharedBySource: Record<string, Record<string, number>> }>('stats');
        const bySource = stats.sharedBySource[EGRESS_HOST] ?? {};
        const peak = Math.max(0, ...Object.values(bySource));
        report.push(
          `  egress    ${label}: ${count.toLocaleString('en')} addresses in ${((run.ended - run.started) / 1000).toFixed(2)} s client-observed = ${Math.round(rate)}/s; ${EGRESS_HOST} so far: at most ${peak} connections at once from one address, each counted until it closed (${Object.entries(bySource).map(([ip, n]) => `${ip} ${n}`).join(', ')}; limit 2: ${peak <= 2 ? 'OK' : 'EXCEEDED'})`,
        );
        if (peak > 2) throw new Error(`${EGRESS_HOST} saw ${peak} sessions at once from one address`);
      } finally {
        for (const p of processes) await p.kill();
      }
    }
    const ratio = (runs['4 egresses, 1 worker'] ?? 0) / (runs['1 egress, 1 worker'] ?? 1);
    const workersRatio = (runs['1 egress, 3 workers'] ?? 0) / (runs['1 egress, 1 worker'] ?? 1);
    report.push(
      `            4 egresses / 1 egress (1 worker): ${ratio.toFixed(2)}× (target ≥ 3: ${ratio >= 3 ? 'OK' : 'MISSED'}); 3 workers / 1 worker on 1 egress: ${workersRatio.toFixed(2)}× (target ≥ 1: ${workersRatio >= 1 ? 'OK' : 'MISSED'}); 4 egresses, 3 workers / 1 egress, 1 worker: ${((runs['4 egresses, 3 workers'] ?? 0) / (runs['1 egress, 1 worker'] ?? 1)).toFixed(2)}×`,
    );
  }

  console.log(
    `\nverification benchmark (load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${os.availableParallelism()} cores); L = ${LATENCY_MS} ms, concurrency ${config.SMTP_PROBE_CONCURRENCY}, ceiling ${Math.round(ceiling)}/s`,
  );
} finally {
  // Whatever was measured is shown, also when a later scenario failed.
  for (const line of report) console.log(line);
  for (const cleanup of cleanups) {
    try {
      await cleanup();
    } catch (error) {
      console.error('cleanup failed:', error);
    }
  }
}
