import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.ts';
import { historyOf } from '../support/history.ts';
import { type DomainSpec, type MailWorld, mailWorldEnv, startMailWorld } from '../support/mail-world/index.ts';
import { inStage, listWithEmails, startJob, waitForJob } from '../support/verification.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';

/**
 * Issue 21 item 3 at CI size: a 50,000-address job beside a 5,000-address one on the same worker process.
 * 1,000 domains, each on its own mail host with 25 mailboxes; a job asks `perDomain` addresses of each,
 * half of them existing. A worker limit of 8 connections makes slices of 2 domains: 500 slices, more
 * than one run's history holds, so the job must continue as new.
 */
const DOMAINS = 1_000;
const MAILBOXES = 25;
const domainName = (i: number) => `d${i}.large.test`;

function worldDomains(): Record<string, DomainSpec> {
  const domains: Record<string, DomainSpec> = {};
  for (let i = 0; i < DOMAINS; i++) {
    const domain = domainName(i);
    const mailboxes = Array.from({ length: MAILBOXES }, (_, k) => `user${k}@${domain}`);
    domains[domain] = {
      mx: [{ host: `mx.${domain}`, preference: 10, ip: `127.0.${10 + Math.floor(i / 250)}.${1 + (i % 250)}`, behaviour: { mailboxes } }],
    };
  }
  return domains;
}

/** `perDomain` addresses of every domain (even k existing, odd k not), distinct from other lists' by `tag`. */
function addressList(perDomain: number, tag: string): string[] {
  const out: string[] = [];
  for (let k = 0; k < perDomain; k++) {
    for (let i = 0; i < DOMAINS; i++) {
      out.push(k % 2 === 0 ? `user${k / 2}@${domainName(i)}` : `${tag}nobody${k}@${domainName(i)}`);
    }
  }
  return out;
}

let world: MailWorld;
let h: Harness;
let worker: WorkerProcess | undefined;

beforeAll(async () => {
  world = await startMailWorld({ domains: worldDomains() });
  const taskQueue = `test-large-${randomUUID()}`;
  // The API here; the worker a process of its own, so its peak RSS is its own.
  h = await startHarness({ env: { TEMPORAL_TASK_QUEUE: taskQueue } });
  worker = await startWorkerProcess({
    ...mailWorldEnv(world),
    SMTP_PROBE_TIMEOUT_MS: '5000',
    SMTP_PROBE_CONCURRENCY: '8',
    DATABASE_URL: inject('databaseUrl'),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: taskQueue,
  });
}, 180_000);
afterAll(async () => {
  await worker?.kill();
  await h?.stop();
  await world?.stop();
});

describe('a 50,000-address job', () => {
  it(
    'keeps the worker flat in memory (peak RSS at 50,000 within 1.2× of that at 5,000, or of its own start) and every run under 2,000 history events',
    { timeout: 900_000 },
    async () => {
      const { agent } = await h.signup();
      const run = async (perDomain: number, tag: string) => {
        const emails = addressList(perDomain, tag);
        const listId = await listWithEmails(agent, emails, `large ${tag}`);
        // The peak of this job alone, not of the worker's start (bundling the workflows) or an earlier job.
        await worker!.resetPeakRss();
        const start = await worker!.rss();
        const created = await startJob(agent, listId, 'smtp_only');
        // The POST counts the list whole, past the first range the workflow starts on meanwhile.
        expect(created.totalEmails).toBe(emails.length);
        const job = await waitForJob(agent, created.id, inStage('completed'), 600_000);
        const valid = Math.ceil(perDomain / 2) * DOMAINS;
        expect(job).toMatchObject({
          totalEmails: emails.length,
          processedEmails: emails.length,
          smtpValidCount: valid,
          smtpInvalidCount: emails.length - valid,
          smtpCatchAllCount: 0,
          smtpUnknownCount: 0,
        });
        return { job, start, peak: await worker!.peakRss(), runs: await historyOf(h.temporal, `verification-${job.id}`) };
      };

      const small = await run(5, 'small');
      const large = await run(50, 'large');
      const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
      console.log(
        `worker peak RSS: ${mb(small.peak)} MB during the 5,000-address job (${mb(small.start)} MB at its start), ${mb(large.peak)} MB during the 50,000-address one (${mb(large.start)} MB at its start); history events per run: ${large.runs.join(', ')}`,
      );

      expect(large.runs.length).toBeGreaterThan(1);
      for (const events of large.runs) expect(events).toBeLessThan(2_000);
      // The worker's resting RSS moves by ~100 MB between jobs either way (heap V8 keeps or gives back), so the
      // large job is held to whichever is higher: the small job's peak or where the worker stood when it began.
      expect(large.peak / Math.max(small.peak, large.start)).toBeLessThan(1.2);

      // The read routes answer from the domains' running counts, which agree with the rows themselves.
      const [counted] = await h.sql(
        `select count(*) filter (where result = 'Valid')::int as valid, count(*) filter (where result = 'Invalid')::int as invalid
         from verification_result where job_id = ?`,
        [large.job.id],
      );
      expect({ valid: large.job.smtpValidCount, invalid: large.job.smtpInvalidCount }).toEqual(counted);
      const progress = (await agent.get(`/api/verification/jobs/${large.job.id}/progress`)).body;
      expect(progress.domainStats).toHaveLength(DOMAINS);
      expect(progress.domainStats[0]).toMatchObject({ totalEmails: 50, validCount: 25, invalidCount: 25 });
      // The download pages through the index (2,000 rows at a time) and ends with every address once.
      const csv = await agent.get(`/api/verification/jobs/${large.job.id}/results/download`);
      expect(csv.status).toBe(200);
      const lines = csv.text.trimEnd().split('\n').slice(1);
      expect(lines).toHaveLength(50 * DOMAINS);
      expect(new Set(lines.map((l) => l.slice(0, l.indexOf(',')))).size).toBe(50 * DOMAINS);
    },
  );
});
