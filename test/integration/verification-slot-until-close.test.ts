import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.ts';
import { type DomainSpec, type MailHost, type MailWorld, mailWorldEnv, startMailWorld } from '../support/mail-world/index.ts';
import { hostOf } from '../support/mail-world/prober.ts';
import { allResults, inStage, listWithEmails, startJob, waitForJob } from '../support/verification.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';

/**
 * CONTRACT §11: a connection counts against a host's limit from its TCP connect until its socket is closed.
 * Three worker processes, two source addresses, one mail host shared by every domain with a limit of 2 that
 * ends each session after a few RCPTs (452), so slots change hands hundreds of times between processes.
 * The host counts each source address's connections from accept until the client closes them.
 */
const DOMAINS = Array.from({ length: 16 }, (_, i) => `close${i}.test`);
const HUB = 'mx.close-hub.test';
const SOURCES = ['127.0.0.2', '127.0.0.3'];
const known = (domain: string) => Array.from({ length: 12 }, (_, k) => `user${k}@${domain}`);
const unknown = (domain: string) => Array.from({ length: 3 }, (_, k) => `nobody${k}@${domain}`);

function worldDomains(): Record<string, DomainSpec> {
  const hub = {
    host: HUB,
    preference: 10,
    ip: '127.0.0.142',
    // Short sessions (4 RCPTs each) with some latency: sessions overlap and turn over all the time.
    behaviour: { mailboxes: DOMAINS.flatMap(known), starttls: false, latencyMs: 15, maxRcptPerSession: 4 },
  };
  return Object.fromEntries(DOMAINS.map((domain) => [domain, { mx: [hub] }]));
}

const LIST = DOMAINS.flatMap((domain) => [
  ...known(domain).map((email) => ({ email, expected: 'Valid' })),
  ...unknown(domain).map((email) => ({ email, expected: 'Invalid' })),
]);

let world: MailWorld;
let h: Harness;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  world = await startMailWorld({ domains: worldDomains() });
  const taskQueue = `test-until-close-${randomUUID()}`;
  const env = {
    ...mailWorldEnv(world),
    SMTP_PROBE_TIMEOUT_MS: '3000',
    SMTP_PROBE_PER_DOMAIN: '2',
    SMTP_SOURCE_ADDRESSES: SOURCES.join(','),
    DATABASE_URL: inject('databaseUrl'),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: taskQueue,
  };
  h = await startHarness({ env: { TEMPORAL_TASK_QUEUE: taskQueue } });
  for (const started of await Promise.all([0, 1, 2].map(() => startWorkerProcess(env)))) workers.push(started);
});

afterAll(async () => {
  for (const w of workers) await w.kill();
  await h?.stop();
  await world?.stop();
});

const hub = (): MailHost => hostOf(world, HUB);

describe('a slot is held until the socket closes', () => {
  it('never more than 2 connections from one source address, counted from accept until close, under three workers', { timeout: 300_000 }, async () => {
    const { agent } = await h.signup();
    const listId = await listWithEmails(
      agent,
      LIST.map((a) => a.email),
    );
    const created = await startJob(agent, listId, 'smtp_only');
    const job = await waitForJob(agent, created.id, inStage('completed', 'failed'), 240_000);
    expect(job).toMatchObject({ verificationStage: 'completed', smtpUnknownCount: 0 });
    const rows = await allResults(agent, created.id);
    expect(rows.map((r) => [r.email, r.result]).sort()).toEqual(LIST.map((a) => [a.email, a.expected]).sort());

    const stats = hub().stats;
    // The slots really changed hands (many sessions) and both egresses carried work.
    expect(stats.sessions).toBeGreaterThan(LIST.length / 4);
    expect(Object.keys(stats.maxConcurrentBySource).sort()).toEqual(SOURCES);
    for (const source of SOURCES) expect(stats.maxConcurrentBySource[source]).toBeLessThanOrEqual(2);
  });
});
