/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies are asserted field by field */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { type DomainSpec, type MailWorld, mailWorldEnv, startMailWorld } from '../support/mail-world/index.ts';
import { startZeroBounceServer, type ZeroBounceServer } from '../../src/sandbox/providers/zerobounce.ts';
import {
  allResults,
  inStage,
  listWithEmails,
  spendRows,
  startJob,
  waitForJob,
  zeroBounceEnv,
} from '../support/verification.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';

/** Four slow domains (25 mailboxes each, replies after 40 ms) and one fast catch-all domain. */
const SLOW = ['slow1.test', 'slow2.test', 'slow3.test', 'slow4.test'];
const CATCH_ALL_ADDRESSES = 250;

function worldDomains(): Record<string, DomainSpec> {
  const domains: Record<string, DomainSpec> = {
    'wide.test': {
      mx: [{ host: 'mx.wide.test', preference: 10, ip: '127.0.0.60', behaviour: { catchAll: true } }],
    },
  };
  SLOW.forEach((domain, i) => {
    const mailboxes = Array.from({ length: 25 }, (_, k) => `user${k}@${domain}`);
    domains[domain] = {
      mx: [
        {
          host: `mx.${domain}`,
          preference: 10,
          ip: `127.0.0.${61 + i}`,
          behaviour: { mailboxes, latencyMs: 40 },
        },
      ],
    };
  });
  return domains;
}

function addressList(): Array<{ email: string; expected: string }> {
  const slow = SLOW.flatMap((domain) =>
    Array.from({ length: 25 }, (_, k) => [
      { email: `user${k}@${domain}`, expected: 'Valid' },
      { email: `nobody${k}@${domain}`, expected: 'Invalid' },
    ]).flat(),
  );
  const wide = Array.from({ length: CATCH_ALL_ADDRESSES }, (_, k) => ({
    email: `person${k}@wide.test`,
    expected: 'Catch-All',
  }));
  return [...wide, ...slow];
}

let world: MailWorld;
let zb: ZeroBounceServer;
let h: Harness;
let workerEnv: Record<string, string>;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  world = await startMailWorld({ domains: worldDomains() });
  zb = await startZeroBounceServer();
  const taskQueue = `test-kill-${randomUUID()}`;
  workerEnv = {
    ...mailWorldEnv(world),
    SMTP_PROBE_TIMEOUT_MS: '2000',
    DATABASE_URL: inject('databaseUrl'),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: taskQueue,
    ...zeroBounceEnv(zb),
  };
  // The API only: every worker of this test is a separate process on the same task queue.
  h = await startHarness({ env: { TEMPORAL_TASK_QUEUE: taskQueue } });
});
afterAll(async () => {
  for (const w of workers) await w.kill();
  await h?.stop();
  await zb?.close();
  await world?.stop();
});

async function worker(): Promise<WorkerProcess> {
  const started = await startWorkerProcess(workerEnv);
  workers.push(started);
  return started;
}

describe('a worker killed mid-job', () => {
  it(
    'leaves a job that still completes, with every address counted once and every bought address charged once',
    { timeout: 420_000 },
    async () => {
      const { agent } = await h.signup();
      const list = addressList();
      const listId = await listWithEmails(
        agent,
        list.map((a) => a.email),
      );
      const first = await worker();
      const created = await startJob(agent, listId, 'smtp_api_fallback');

      // Killed in the middle of the SMTP stage: the catch-all domain is done, the slow ones are not.
      await waitForJob(agent, created.id, (job) => job.processedEmails > CATCH_ALL_ADDRESSES + 10, 120_000);
      await first.kill();
      const atKill = (await agent.get(`/api/verification/jobs/${created.id}`)).body;
      expect(atKill.verificationStage).toBe('smtp_verifying');
      expect(atKill.processedEmails).toBeLessThan(list.length);

      const second = await worker();
      const waiting = await waitForJob(agent, created.id, inStage('awaiting_decision'), 180_000);
      const rows = await allResults(agent, created.id);
      expect(rows).toHaveLength(list.length);
      for (const a of list)
        expect({ email: a.email, result: rows.find((r) => r.email === a.email)?.result }).toEqual({
          email: a.email,
          result: a.expected,
        });
      expect(waiting).toMatchObject({
        totalEmails: list.length,
        processedEmails: list.length,
        smtpValidCount: 100,
        smtpInvalidCount: 100,
        smtpCatchAllCount: CATCH_ALL_ADDRESSES,
        smtpUnknownCount: 0,
      });
      const progress = (await agent.get(`/api/verification/jobs/${created.id}/progress`)).body;
      expect(progress.domainStats.map((d: any) => [d.domain, d.totalEmails, d.isCatchAll])).toEqual([
        ['wide.test', CATCH_ALL_ADDRESSES, true],
        ...SLOW.map((domain) => [domain, 50, false]),
      ]);

      // Killed again while the provider works: one batch of 200 stored, the second one in flight.
      zb.setMode({ kind: 'delay', ms: 4000 });
      const decision = await agent.post(`/api/verification/jobs/${created.id}/decision`, {
        decision: 'fill_catchall_only',
      });
      expect(decision.body).toMatchObject({ verificationStage: 'api_verifying' });
      await eventually(() => spendRows(h, created.id), (rows) => rows.length > 0, { what: 'the first provider batch stored', timeoutMs: 120_000, intervalMs: 100 });
      await second.kill();
      expect((await spendRows(h, created.id)).length).toBe(200);
      zb.setMode({ kind: 'normal' });

      await worker();
      const done = await waitForJob(agent, created.id, inStage('completed'), 180_000);
      const spend = await spendRows(h, created.id);
      const catchAll = list.filter((a) => a.expected === 'Catch-All').map((a) => a.email);
      expect(spend.map((s) => s.email)).toEqual([...catchAll].sort());
      expect(new Set(spend.map((s) => s.email)).size).toBe(spend.length);
      expect(done).toMatchObject({
        totalEmails: list.length,
        processedEmails: list.length,
        smtpCatchAllCount: CATCH_ALL_ADDRESSES,
        apiVerifiedEmails: CATCH_ALL_ADDRESSES,
        apiUnknownCount: CATCH_ALL_ADDRESSES,
        apiCost: (CATCH_ALL_ADDRESSES * 500) / 1_000_000,
      });
      // The provider saw every bought address at least once; the batch cut short was sent again.
      const sent = zb.requests.flatMap((r) =>
        (r.body as { email_batch: Array<{ email_address: string }> }).email_batch.map((e) => e.email_address),
      );
      expect(new Set(sent)).toEqual(new Set(catchAll));
      expect(sent.length).toBeGreaterThanOrEqual(CATCH_ALL_ADDRESSES);
    },
  );
});
