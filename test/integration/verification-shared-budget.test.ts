import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LEASE_TTL_MS } from '../../src/smtp/shared-budget.ts';
import { startZeroBounceServer, type ZeroBounceServer } from '../../src/sandbox/providers/zerobounce.ts';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { type DomainSpec, type MailHost, type MailWorld, mailWorldEnv, startMailWorld } from '../support/mail-world/index.ts';
import { hostOf } from '../support/mail-world/prober.ts';
import { allResults, inStage, listWithEmails, startJob, waitForJob, zeroBounceEnv } from '../support/verification.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';

/**
 * Three worker processes on one task queue and one database, against a mail host shared by every domain of the
 * job, whose limit is 2 (SMTP_PROBE_PER_DOMAIN). The host counts its own sessions per client address. One worker
 * is killed (SIGKILL) while it holds leases on that host.
 */
const DOMAINS = Array.from({ length: 12 }, (_, i) => `hub${i}.test`);
const HUB = 'mx.hub.test';
const known = (domain: string) => Array.from({ length: 15 }, (_, k) => `user${k}@${domain}`);
const unknown = (domain: string) => Array.from({ length: 5 }, (_, k) => `nobody${k}@${domain}`);

function worldDomains(): Record<string, DomainSpec> {
  const hub = {
    host: HUB,
    preference: 10,
    ip: '127.0.0.140',
    // Slow replies: sessions overlap, and a worker dies holding some.
    behaviour: { mailboxes: DOMAINS.flatMap(known), starttls: false, latencyMs: 40 },
  };
  return Object.fromEntries(DOMAINS.map((domain) => [domain, { mx: [hub] }]));
}

const LIST = DOMAINS.flatMap((domain) => [
  ...known(domain).map((email) => ({ email, expected: 'Valid' })),
  ...unknown(domain).map((email) => ({ email, expected: 'Invalid' })),
]);

let world: MailWorld;
let zb: ZeroBounceServer;
let h: Harness;
let db: pg.Pool;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  world = await startMailWorld({ domains: worldDomains() });
  zb = await startZeroBounceServer();
  db = new pg.Pool({ connectionString: inject('databaseUrl'), max: 2 });
  const taskQueue = `test-budget-${randomUUID()}`;
  const env = {
    ...mailWorldEnv(world),
    SMTP_PROBE_TIMEOUT_MS: '3000',
    SMTP_PROBE_PER_DOMAIN: '2',
    DATABASE_URL: inject('databaseUrl'),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: taskQueue,
    ...zeroBounceEnv(zb),
  };
  h = await startHarness({ env: { TEMPORAL_TASK_QUEUE: taskQueue } });
  for (const started of await Promise.all([0, 1, 2].map(() => startWorkerProcess(env)))) workers.push(started);
});

afterAll(async () => {
  for (const w of workers) await w.kill();
  await h?.stop();
  await db?.end();
  await zb?.close();
  await world?.stop();
});

const hub = (): MailHost => hostOf(world, HUB);

/** Live leases on the hub, by holder. */
async function liveLeases(): Promise<Map<string, number>> {
  const { rows } = await db.query<{ holder: string; n: number }>(
    'select holder, count(*)::int as n from smtp_lease where host = $1 and expires_at > clock_timestamp() group by holder',
    [HUB],
  );
  return new Map(rows.map((row) => [row.holder, row.n]));
}

describe('three worker processes share one politeness budget', () => {
  it(
    'never more than 2 sessions from one address to a host of limit 2; a worker killed holding leases frees them within the lease time, and the job is exact',
    { timeout: 420_000 },
    async () => {
      const { agent } = await h.signup();
      const listId = await listWithEmails(
        agent,
        LIST.map((a) => a.email),
      );
      const created = await startJob(agent, listId, 'smtp_api_fallback');

      // A worker holding a lease on the hub: killed outright, with no chance to release it.
      const holderOf = (w: WorkerProcess) => `${hostname()} pid ${w.pid}`;
      const victim = (await eventually(
        async () => {
          const leases = await liveLeases();
          return workers.find((w) => (leases.get(holderOf(w)) ?? 0) > 0);
        },
        (holding) => holding !== undefined,
        { what: 'a worker holding a lease on the hub', timeoutMs: 180_000, intervalMs: 20 },
      ))!;
      await victim.kill();
      const killedAt = Date.now();
      const holder = holderOf(victim);
      await eventually(liveLeases, (leases) => !leases.has(holder), { what: "the dead worker's leases expired", timeoutMs: LEASE_TTL_MS + 5_000, intervalMs: 100 });
      // CONTRACT §11: back within the lease expiry (at most 30 s); nobody renewed the dead worker's leases.
      expect(Date.now() - killedAt).toBeLessThanOrEqual(LEASE_TTL_MS + 5_000);

      const waiting = await waitForJob(agent, created.id, inStage('awaiting_decision', 'completed'), 300_000);
      const rows = await allResults(agent, created.id);
      expect(rows).toHaveLength(LIST.length);
      expect(new Set(rows.map((r) => r.email)).size).toBe(LIST.length);
      expect(rows.map((r) => [r.email, r.result]).sort()).toEqual(LIST.map((a) => [a.email, a.expected]).sort());
      expect(waiting).toMatchObject({ totalEmails: LIST.length, processedEmails: LIST.length, smtpUnknownCount: 0 });

      // The host's own count, over the whole job: the limit held across all three processes.
      expect(Object.keys(hub().stats.maxConcurrentBySource)).toEqual(['127.0.0.1']);
      expect(hub().stats.maxConcurrentBySource['127.0.0.1']).toBeLessThanOrEqual(2);
      expect(hub().stats.dataCommands).toBe(0);
    },
  );
});
