import { randomUUID } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { acquireLeases } from '../../src/smtp/repository-budget.ts';
import { initOrm, migrateUp } from '../../src/db/orm.ts';
import { startEmbeddedPostgres } from '../../src/dev/embedded-postgres.ts';
import { environmentWarnings } from '../../src/smtp/environment.ts';
import type { SmtpProberOptions, SmtpProber } from '../../src/smtp/prober.ts';
import { SharedBudget } from '../../src/smtp/shared-budget.ts';
import { smtpLeaseWaits } from '../../src/metrics.ts';
import { eventually } from '../support/eventually.ts';
import type { HostBehaviour, MailHost, MailWorld, MxSpec } from '../support/mail-world/index.ts';
import { startMailWorld } from '../support/mail-world/index.ts';
import { hostOf, testProber } from '../support/mail-world/prober.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';
import { freePort } from '../support/worker-process.ts';

/**
 * The per-(egress, MX host) budget every worker process shares (CONTRACT §11). Each "process" here is a
 * prober with its own PostgreSQL pool and lease holder: what separates processes as far as the budget can
 * tell. The mail hosts count their own sessions per client address; the probers' word is never taken.
 */

const known = (domain: string, n: number) => Array.from({ length: n }, (_, k) => `user${k}@${domain}`);
const unknown = (domain: string, n: number) => Array.from({ length: n }, (_, k) => `nobody${k}@${domain}`);
const domains = (prefix: string, n: number) => Array.from({ length: n }, (_, k) => `${prefix}${k}.test`);

const SHARED = domains('s', 9);
const TWO_SOURCES = domains('two', 8);
const DROPPED = domains('e', 4);
const RESTART = domains('r', 4);
const REBOOT = domains('rb', 4);
const DEAD = 'dead.test';

function hostFor(host: string, ip: string, served: readonly string[], extra: HostBehaviour = {}): MxSpec {
  return {
    host,
    preference: 10,
    ip,
    // Slow replies keep sessions open long enough to overlap: a budget that leaks shows.
    behaviour: { mailboxes: served.flatMap((d) => known(d, 10)), starttls: false, latencyMs: 15, ...extra },
  };
}

let world: MailWorld;
const pools: pg.Pool[] = [];
let db: pg.Pool;

/**
 * A pool the suite ends. pg's pool.end() resolves before its sockets close, so a server stopped right after can still
 * fail an ending connection: without a listener that error would be uncaught.
 */
function openPool(max: number, connectionString = inject('databaseUrl')): pg.Pool {
  const pool = new pg.Pool({ connectionString, max });
  pool.on('error', () => undefined);
  pools.push(pool);
  return pool;
}

/** One worker process as far as the budget can tell: its own pool and holder. */
function processBudget(options: { ttlMs?: number; connectionString?: string } = {}): SharedBudget {
  const pool = openPool(4, options.connectionString);
  return new SharedBudget(pool, { holder: `test ${randomUUID()}`, ...(options.ttlMs ? { ttlMs: options.ttlMs } : {}) });
}

const proberFor = (overrides: Partial<SmtpProberOptions>): SmtpProber => testProber(world, { timeoutMs: 5_000, ...overrides });
const host = (name: string): MailHost => hostOf(world, name);

async function probeAll(prober: SmtpProber, names: readonly string[], perDomain = 10) {
  const outcomes = await Promise.all(
    names.map((domain) => prober.probeDomain(domain, [...known(domain, perDomain), ...unknown(domain, 2)])),
  );
  return outcomes.flatMap((o) => o.outcomes.map((x) => [x.email, x.result]));
}

const expected = (names: readonly string[], perDomain = 10) =>
  names.flatMap((domain) => [
    ...known(domain, perDomain).map((email) => [email, 'Valid']),
    ...unknown(domain, 2).map((email) => [email, 'Invalid']),
  ]);

/** Leases of `hostName` that still count (expired ones are deleted lazily, by the next acquire there). */
async function leasesOf(hostName: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'select count(*)::int as n from smtp_lease where host = $1 and expires_at > clock_timestamp()',
    [hostName],
  );
  return rows[0]?.n ?? 0;
}

beforeAll(async () => {
  db = new pg.Pool({ connectionString: inject('databaseUrl'), max: 2 });
  const shared = hostFor('mx.shared.test', '127.0.0.130', SHARED);
  const two = hostFor('mx.two.test', '127.0.0.131', TWO_SOURCES, { latencyMs: 30 });
  const dropped = hostFor('mx.dropped.test', '127.0.0.132', DROPPED, { dropFrom: ['127.0.0.3'] });
  const canary = hostFor('mx.canary.test', '127.0.0.133', [], { dropFrom: ['127.0.0.3'] });
  const throttling = hostFor('mx.throttle.test', '127.0.0.134', ['t.test'], { closeAfterCommands: 4 });
  const restart = hostFor('mx.restart.test', '127.0.0.135', RESTART, { latencyMs: 30 });
  const reboot = hostFor('mx.reboot.test', '127.0.0.137', REBOOT, { latencyMs: 30 });
  const dead = hostFor('mx.dead-holder.test', '127.0.0.136', [DEAD]);
  const ending = hostFor('mx.ending.test', '127.0.0.138', ['ending.test'], { latencyMs: 60 });
  const next = hostFor('mx.next.test', '127.0.0.139', ['next.test']);
  world = await startMailWorld({
    domains: {
      ...Object.fromEntries(SHARED.map((d) => [d, { mx: [shared] }])),
      ...Object.fromEntries(TWO_SOURCES.map((d) => [d, { mx: [two] }])),
      ...Object.fromEntries(DROPPED.map((d) => [d, { mx: [dropped] }])),
      ...Object.fromEntries(RESTART.map((d) => [d, { mx: [restart] }])),
      ...Object.fromEntries(REBOOT.map((d) => [d, { mx: [reboot] }])),
      'canary.test': { mx: [canary] },
      't.test': { mx: [throttling] },
      [DEAD]: { mx: [dead] },
      'ending.test': { mx: [ending] },
      'next.test': { mx: [next] },
    },
  });
});

afterAll(async () => {
  for (const pool of pools) await pool.end();
  await db?.end();
  await world?.stop();
});

describe('one budget per (egress, MX host) across processes', () => {
  it('three processes on one host of limit 2 never hold more than 2 sessions from one address together', async () => {
    const probers = [0, 1, 2].map(() => proberFor({ budget: processBudget() }));
    // Each process has three domains of the shared host: 36 addresses, far more than one session's worth.
    const results = await Promise.all(probers.map((prober, i) => probeAll(prober, SHARED.slice(i * 3, i * 3 + 3))));
    expect(results.flat()).toEqual(expected(SHARED));
    const stats = host('mx.shared.test').stats;
    expect(Object.keys(stats.maxConcurrentBySource)).toEqual(['127.0.0.1']);
    expect(stats.maxConcurrentBySource['127.0.0.1']).toBeLessThanOrEqual(2);
    // Every process had sessions there: the limit was shared, not won by one of them.
    for (const prober of probers) expect(prober.peakSessions('mx.shared.test')).toBeGreaterThan(0);
    await eventually(() => leasesOf('mx.shared.test'), (n) => n === 0, { what: 'leases released', timeoutMs: 10_000 });
  });

  it('the leases of a process that died holding them count until they expire, then the host is free again', async () => {
    // A process took both slots of the host and died: nobody renews or releases its leases.
    const ttlMs = 2_000;
    const pool = openPool(1);
    const key = { egress: 'direct', host: 'mx.dead-holder.test' };
    const limits = { connections: 2, connectIntervalMs: 0 };
    // In one statement: the third lease of the batch finds the first two taken.
    const answers = await acquireLeases(pool, [1, 2, 3].map(() => ({ key, limits, id: randomUUID() })), { holder: 'killed', ttlMs });
    expect(answers.map((answer) => answer.waitMs)).toEqual([0, 0, -1]);
    const taken = Date.now();
    const prober = proberFor({ budget: processBudget() });
    expect(await probeAll(prober, [DEAD])).toEqual(expected([DEAD]));
    // Nothing reached the host before the dead process's leases ran out.
    expect(Date.now() - taken).toBeGreaterThanOrEqual(ttlMs - 100);
    expect(host('mx.dead-holder.test').stats.maxConcurrentBySource['127.0.0.1']).toBeLessThanOrEqual(2);
    await eventually(() => leasesOf('mx.dead-holder.test'), (n) => n === 0, { what: 'leases released', timeoutMs: 10_000 });
    // The wait shows in /metrics, by provider and egress.
    const waits = (await smtpLeaseWaits.get()).values.find((v) => v.labels.egress === 'direct' && v.labels.mx_provider === 'other');
    expect(waits?.value).toBeGreaterThanOrEqual(1);
  });

  it('a session waiting for the slot of one about to end takes its lease meanwhile, and opens once that one closes', async () => {
    const granted: Array<[host: string, at: number]> = [];
    class RecordingBudget extends SharedBudget {
      override async acquire(...args: Parameters<SharedBudget['acquire']>) {
        const lease = await super.acquire(...args);
        if (lease) granted.push([args[0].host, performance.timeOrigin + performance.now()]);
        return lease;
      }
    }
    const prober = proberFor({ concurrency: 1, budget: new RecordingBudget(openPool(2), { holder: `test ${randomUUID()}` }) });
    const first = probeAll(prober, ['ending.test']);
    await eventually(() => host('mx.ending.test').stats.sessions, (n) => n === 1, { what: 'the first session open' });
    expect(await probeAll(prober, ['next.test'])).toEqual(expected(['next.test']));
    expect(await first).toEqual(expected(['ending.test']));
    const [ended] = host('mx.ending.test').stats.log;
    const [opened] = host('mx.next.test').stats.log;
    const nextLease = granted.find(([name]) => name === 'mx.next.test')![1];
    // Its QUIT went out with the last RCPT, two 60 ms replies before the close: the next lease came within them.
    expect(nextLease).toBeLessThan(ended!.closedAt! - 30);
    // One connection at a time still: the next session was accepted only after the first one closed.
    expect(opened!.acceptedAt).toBeGreaterThanOrEqual(ended!.closedAt! - 5);
  });

  it('two processes taking leases of the same hosts in opposite orders, a statement each, neither fail nor share a slot', async () => {
    const limits = { connections: 1, connectIntervalMs: 0 };
    const pools = [openPool(1), openPool(1)] as const;
    for (let round = 0; round < 5; round += 1) {
      const hosts = Array.from({ length: 40 }, (_, k) => `mx.order${round}-${k}.test`);
      const ask = (pool: pg.Pool, order: readonly string[]) =>
        acquireLeases(pool, order.map((host) => ({ key: { egress: 'direct', host }, limits, id: randomUUID() })), {
          holder: `order ${randomUUID()}`,
          ttlMs: 2_000,
        });
      // Each statement locks the hosts' budget rows as it goes: in the order given, two would meet in a circle.
      const [forward, backward] = await Promise.all([ask(pools[0], hosts), ask(pools[1], hosts.toReversed())]);
      const taken = hosts.map((_, k) => [forward[k]!.waitMs, backward[hosts.length - 1 - k]!.waitMs].sort((a, b) => a - b));
      expect(taken).toEqual(hosts.map(() => [-1, 0]));
    }
  });

  it('a 421 seen by one process halves the host for the others, and its pause holds them back', async () => {
    const first = proberFor({ budget: processBudget() });
    // The host says 421 after 4 commands of a session: the first process learns it is throttled.
    await first.probeDomain('t.test', known('t.test', 10));
    // The first process tells the others as it goes (no round trip on its sessions' path): awaited here.
    await eventually(
      async () => {
        const { rows } = await db.query<{ allowed: number }>(
          "select allowed from smtp_host_budget where egress = 'direct' and host = 'mx.throttle.test'",
        );
        return rows[0]?.allowed;
      },
      (allowed) => allowed === 1,
      { what: 'the throttle recorded', timeoutMs: 10_000 },
    );
    // Another process, which never spoke to the host, is granted what the first one learnt.
    const other = processBudget();
    const controller = new AbortController();
    const lease = await other.acquire(
      { egress: 'direct', host: 'mx.throttle.test' },
      first.providerLimits('other'),
      { mx_provider: 'other' },
      controller.signal,
    );
    expect(lease).toMatchObject({ allowed: 1 });
    await lease?.release();
    // A throttling sign from one process: the other's next session waits out the pause.
    const pausedFor = 1_500;
    processBudget().throttled({ egress: 'direct', host: 'mx.throttle.test' }, pausedFor);
    await eventually(
      async () => {
        const { rows } = await db.query<{ paused: boolean }>(
          "select paused_until > clock_timestamp() + interval '1 second' as paused from smtp_host_budget where egress = 'direct' and host = 'mx.throttle.test'",
        );
        return rows[0]?.paused;
      },
      (paused) => paused === true,
      { what: 'the pause recorded', timeoutMs: 10_000 },
    );
    const asked = Date.now();
    const next = await other.acquire(
      { egress: 'direct', host: 'mx.throttle.test' },
      first.providerLimits('other'),
      { mx_provider: 'other' },
      controller.signal,
    );
    expect(next).not.toBeNull();
    expect(Date.now() - asked).toBeGreaterThanOrEqual(1_000 - 50);
    await next?.release();
  });

  it('two source addresses are two egresses, each with its own budget on the same host', async () => {
    const prober = proberFor({ budget: processBudget(), sourceAddresses: ['127.0.0.2', '127.0.0.3'] });
    expect(await probeAll(prober, TWO_SOURCES)).toEqual(expected(TWO_SOURCES));
    const bySource = host('mx.two.test').stats.maxConcurrentBySource;
    expect(Object.keys(bySource).sort()).toEqual(['127.0.0.2', '127.0.0.3']);
    for (const peak of Object.values(bySource)) expect(peak).toBeLessThanOrEqual(2);
    const { rows } = await db.query<{ egress: string }>(
      "select egress from smtp_host_budget where host = 'mx.two.test' order by egress",
    );
    expect(rows.map((r) => r.egress)).toEqual(['127.0.0.2', '127.0.0.3']);
  });

  it('an egress whose port 25 is dropped is taken out of use and named; the other finishes the job', async () => {
    const prober = proberFor({
      budget: processBudget(),
      sourceAddresses: ['127.0.0.2', '127.0.0.3'],
      canaryDomains: ['canary.test'],
    });
    const state = await prober.environment.current();
    expect(state).toMatchObject({ dns: 'ok', smtp: 'ok', blockedEgresses: ['127.0.0.3'] });
    expect(environmentWarnings(state)).toEqual([
      { code: 'smtp_egress_blocked', message: expect.stringContaining('127.0.0.3') },
    ]);
    expect(await probeAll(prober, DROPPED)).toEqual(expected(DROPPED));
    const remotes = host('mx.dropped.test').stats.log.map((session) => session.remote.split(':')[0]);
    expect(new Set(remotes)).toEqual(new Set(['127.0.0.2']));
  });

  it('the budget survives its database going away mid-job: sessions wait, then carry on within the limit', async () => {
    const database = new URL(inject('databaseUrl'));
    const proxy = new TcpProxy({ host: database.hostname, port: Number(database.port || 5432) });
    await proxy.up();
    try {
      const through = new URL(database);
      through.host = proxy.address;
      const ttlMs = 3_000;
      const budget = processBudget({ ttlMs, connectionString: through.toString() });
      const pool = pools.at(-1)!;
      const prober = proberFor({ budget });
      const work = probeAll(prober, RESTART);
      await eventually(() => budget.held, (n) => n > 0, { what: 'a lease held', timeoutMs: 30_000 });
      // The database "restarts": every connection cut, new ones refused, until it is back.
      await proxy.down();
      await eventually(() => pool.totalCount, (n) => n === 0, { what: 'every connection to the database cut', timeoutMs: 30_000 });
      await proxy.up();
      expect(await work).toEqual(expected(RESTART));
      expect(host('mx.restart.test').stats.maxConcurrentBySource['127.0.0.1']).toBeLessThanOrEqual(2);
      // Releases lost while it was down expire like a dead worker's.
      await eventually(() => leasesOf('mx.restart.test'), (n) => n === 0, { what: 'leases gone', timeoutMs: ttlMs + 10_000 });
    } finally {
      await proxy.down();
    }
  });

  it('the lease table survives a real PostgreSQL restart mid-job: sessions wait, then carry on within the limit', async () => {
    // A private server (the one npm run dev embeds), so stopping it stops nobody else's tests.
    const root = await mkdtemp(path.join(tmpdir(), 'budget-pg-'));
    await chmod(root, 0o755);
    const options = { dataDir: path.join(root, 'postgres'), port: await freePort(), signal: new AbortController().signal, log: () => undefined };
    let server = await startEmbeddedPostgres(options);
    try {
      const orm = await initOrm(server.url);
      await migrateUp(orm);
      await orm.close();
      const ttlMs = 3_000;
      const budget = processBudget({ ttlMs, connectionString: server.url });
      const prober = proberFor({ budget });
      const work = probeAll(prober, REBOOT);
      await eventually(() => budget.held, (n) => n > 0, { what: 'a lease held', timeoutMs: 30_000 });
      await server.process.stop();
      server = await startEmbeddedPostgres(options);
      expect(await work).toEqual(expected(REBOOT));
      expect(host('mx.reboot.test').stats.maxConcurrentBySource['127.0.0.1']).toBeLessThanOrEqual(2);
      // Leases committed before the restart are still rows after it, and expire like a dead worker's.
      const after = openPool(1, server.url);
      await eventually(
        async () => (await after.query<{ n: number }>("select count(*)::int as n from smtp_lease where host = 'mx.reboot.test' and expires_at > clock_timestamp()")).rows[0]!.n,
        (n) => n === 0,
        { what: 'leases gone', timeoutMs: ttlMs + 10_000 },
      );
    } finally {
      for (const pool of pools.splice(-2)) await pool.end().catch(() => undefined);
      await server.process.stop();
      await rm(root, { recursive: true, force: true });
    }
  });
});
