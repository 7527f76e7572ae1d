/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies are asserted field by field */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Agent } from '../support/agent.ts';
import { createKey } from '../support/auth-cases.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { type MailWorld, mailWorldEnv, startMailWorld } from '../support/mail-world/index.ts';
import { allResults, listWithEmails, startJob, waitForJob } from '../support/verification.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';

/**
 * CONTRACT §7 SMTP_GREYLIST_SCHEDULE, §10 deferredCount. The in-session attempts (3, 200 ms apart)
 * all fall inside the greylisting window of grey.test; the later ones (after 3 s, 4 s, 6 s) do not.
 * stuck.test defers for ever: its address outlives the schedule.
 */
const GREYLIST_MS = 5_000;
const SCHEDULE = '3s,4s,6s';

const EXPECTED: Record<string, string> = {
  'ann@grey.test': 'Valid',
  'zed@grey.test': 'Invalid',
  'ok@plain.test': 'Valid',
  'no@plain.test': 'Invalid',
  'who@stuck.test': 'Unknown',
};

let world: MailWorld;
let h: Harness;
let workerEnv: Record<string, string>;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  world = await startMailWorld({
    domains: {
      'grey.test': {
        mx: [
          {
            host: 'mx.grey.test',
            preference: 10,
            ip: '127.0.0.81',
            behaviour: { mailboxes: ['ann@grey.test'], greylistForMs: GREYLIST_MS },
          },
        ],
      },
      'plain.test': {
        mx: [{ host: 'mx.plain.test', preference: 10, ip: '127.0.0.82', behaviour: { mailboxes: ['ok@plain.test'] } }],
      },
      'stuck.test': {
        mx: [{ host: 'mx.stuck.test', preference: 10, ip: '127.0.0.83', behaviour: { deferAlways: true } }],
      },
    },
  });
  const taskQueue = `test-greylist-${randomUUID()}`;
  workerEnv = {
    ...mailWorldEnv(world),
    SMTP_GREYLIST_SCHEDULE: SCHEDULE,
    DATABASE_URL: inject('databaseUrl'),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: taskQueue,
  };
  // The API only: the workers are separate processes on the same task queue, so one can be killed.
  h = await startHarness({ env: { TEMPORAL_TASK_QUEUE: taskQueue } });
});
afterAll(async () => {
  for (const w of workers) await w.kill();
  await h?.stop();
  await world?.stop();
});

async function worker(): Promise<WorkerProcess> {
  const started = await startWorkerProcess(workerEnv);
  workers.push(started);
  return started;
}

describe('verification workflow: greylisted addresses', () => {
  it(
    'waits for later attempts on durable timers across a worker restart, while the rest is already final',
    { timeout: 300_000 },
    async () => {
      const { agent } = await h.signup();
      const listId = await listWithEmails(agent, Object.keys(EXPECTED));
      const first = await worker();
      const created = await startJob(agent, listId, 'smtp_api_fallback');

      // The plain domain is final and counted; the greylisted and stuck addresses wait, with no result yet.
      const waiting = await waitForJob(
        agent,
        created.id,
        (job) => job.processedEmails === 2 && job.deferredCount === 3,
        60_000,
      );
      expect(waiting).toMatchObject({ verificationStage: 'smtp_verifying', smtpValidCount: 1, smtpInvalidCount: 1 });
      // The external route shows the same count.
      const { key } = await createKey(agent, ['verification:read']);
      const external = await new Agent(h.app).send('GET', `/api/external/verification/jobs/${created.id}`, {
        headers: { 'x-api-key': key },
      });
      expect(external.status).toBe(200);
      expect(external.body.deferredCount).toBe(3);
      const early = await allResults(agent, created.id);
      expect(Object.fromEntries(early.map((r) => [r.email, r.result]))).toEqual({
        'ann@grey.test': null,
        'zed@grey.test': null,
        'ok@plain.test': 'Valid',
        'no@plain.test': 'Invalid',
        'who@stuck.test': null,
      });

      // The worker dies during the wait; a new one takes over the timers' aftermath.
      await first.kill();
      const afterKill = (await agent.get(`/api/verification/jobs/${created.id}`)).body;
      expect(afterKill).toMatchObject({ verificationStage: 'smtp_verifying', deferredCount: 3 });
      await worker();

      const seen: any[] = [];
      const done = await waitForJob(
        agent,
        created.id,
        (job) => {
          seen.push(job);
          return job.verificationStage === 'awaiting_decision';
        },
        180_000,
      );
      // The SMTP stage ended only once nothing was deferred.
      for (const job of seen) if (job.deferredCount > 0) expect(job.verificationStage).toBe('smtp_verifying');
      expect(done).toMatchObject({
        deferredCount: 0,
        processedEmails: 5,
        smtpValidCount: 1 + 1,
        smtpInvalidCount: 1 + 1,
        smtpUnknownCount: 1,
      });

      const rows = await allResults(agent, created.id);
      expect(Object.fromEntries(rows.map((r) => [r.email, r.result]))).toEqual(EXPECTED);
      // Every result reached the leads, the one settled when the schedule was spent too.
      const leads = await h.sql(`select email, email_status from lead where list_id = ?`, [listId]);
      expect(Object.fromEntries(leads.map((l) => [l.email, l.email_status]))).toEqual(EXPECTED);
      const stuck = rows.find((r) => r.email === 'who@stuck.test');
      // 3 attempts in the first session, then one per step of the schedule.
      expect(stuck.reason).toMatch(/^greylisted: deferred 6 times over \d+ s \(451 4\.3\.0 /);
      expect(stuck.source).toBe('smtp');
      // The evidence counts every attempt, the later ones too (CONTRACT §10).
      expect(stuck).toMatchObject({ smtpCode: 451, enhancedCode: '4.3.0', attempts: 6 });
      // One transcript entry per attempt, the later passes' appended to the first session's (CONTRACT §10).
      const transcript = (await agent.get(`/api/verification/jobs/${created.id}/results/who%40stuck.test`)).body.transcript;
      expect(transcript).toHaveLength(6);
      for (const entry of transcript) {
        expect(entry).toMatchObject({ mxHost: 'mx.stuck.test', ip: '127.0.0.83' });
        expect(entry.lines.slice(-2)).toEqual([
          { dir: 'C', text: 'RCPT TO:<who@stuck.test>' },
          { dir: 'S', text: expect.stringMatching(/^451 4\.3\.0 /) },
        ]);
      }
      expect(transcript.map((e: any) => e.at)).toEqual(transcript.map((e: any) => e.at).sort());
      expect(rows.find((r) => r.email === 'ann@grey.test')).toMatchObject({ source: 'smtp', mxHost: 'mx.grey.test' });
      // Asked in the first session (3 times) and again later, until the greylisting window had passed.
      const asked = world.servers['mx.grey.test']!.stats.rcpts.filter((r) => r === 'ann@grey.test');
      expect(asked.length).toBeGreaterThanOrEqual(4);
      expect(rows.find((r) => r.email === 'ann@grey.test')).toMatchObject({ smtpCode: 250, attempts: asked.length });
    },
  );
});
