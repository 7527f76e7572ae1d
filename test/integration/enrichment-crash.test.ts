import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { enrichmentActivities } from '../../activities/enrichment.ts';
import type { BatchStep } from '../../src/enrichment/messages.ts';
import { createActivityDeps } from '../../activities/deps.ts';
import { createBulkJob, listSnapshot } from '../../src/enrichment/repository.ts';
import { chargesOf, ledgerOf, listWithLeads, settledJob } from '../support/enrichment/helpers.ts';
import { MAIL, startEnrichmentWorld, withFastProviders, type EnrichmentWorld } from '../support/enrichment/world.ts';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';

const BATCH = 5;
// Workers of their own, with the fast provider adapters, so they can be killed.
const FAST_WORKER = { main: path.join(import.meta.dirname, '../support/enrichment/fast-worker-main.ts') };
let world: EnrichmentWorld;
let h: Harness;

beforeAll(async () => {
  world = await startEnrichmentWorld({ ipBase: 73 });
  // The API only: workers run as processes of their own so they can be killed.
  h = await startHarness({ env: { ...world.env, ENRICHMENT_BATCH_SIZE: String(BATCH) } });
});
afterAll(async () => {
  await h?.stop();
  await world?.stop();
});

let phones = 0;
const nextPhone = () => `+1646555${String(1000 + ++phones).padStart(4, '0')}`;

interface Expected {
  input: { networkUrl: string };
  charges: Partial<Record<'workEmail' | 'personalEmail' | 'phone', number>>;
}

/** A mixed list: every combination of verified, unverified and missing data, in rotation. */
function mixedLeads(count: number): Expected[] {
  return Array.from({ length: count }, (_, i) => {
    const url = world.profile('crash');
    const kind = i % 5;
    const charges: Expected['charges'] = {};
    if (kind === 0) {
      world.providers.pdl.fixtures.people.set(url, { work_email: world.mailbox(MAIL.company), personal_emails: [world.mailbox(MAIL.personal)], mobile_phone: nextPhone() });
      Object.assign(charges, { workEmail: -1, personalEmail: -1, phone: -2 });
    } else if (kind === 1) {
      world.providers.pdl.fixtures.people.set(url, { work_email: world.nobody(MAIL.company), mobile_phone: nextPhone() });
      Object.assign(charges, { phone: -2 });
    } else if (kind === 2) {
      world.providers.lusha.fixtures.people.set(url, { emailAddresses: [{ email: world.mailbox(MAIL.other), emailType: 'work' }] });
      Object.assign(charges, { workEmail: -1 });
    } else if (kind === 3) {
      world.providers.pdl.fixtures.people.set(url, { work_email: `x@${MAIL.catchAll}`, phone_numbers: ['555'] });
    }
    return { input: { networkUrl: url }, charges };
  });
}

function expectedCharges(jobId: string, leads: Expected[], leadIds: string[]): Map<string, number> {
  return new Map(leads.flatMap((lead, i) => Object.entries(lead.charges).map(([field, delta]) => [`${jobId}:${leadIds[i]}:${field}`, delta] as const)));
}

const workerEnv = () => ({
  ...world.env,
  NODE_ENV: 'test',
  LOG_LEVEL: 'debug',
  DATABASE_URL: inject('databaseUrl'),
  TEMPORAL_ADDRESS: inject('temporalAddress'),
  TEMPORAL_TASK_QUEUE: h.config.TEMPORAL_TASK_QUEUE,
  ENRICHMENT_BATCH_SIZE: String(BATCH),
  WORKFLOW_BUNDLE_PATH: inject('workflowBundlePath'),
});

describe('bulk enrichment across worker crashes', () => {
  it('charges exactly what the verified finds are worth when the worker is killed twice mid-batch', { timeout: 240_000 }, async () => {
    const { agent, organizationId } = await h.signup({ credits: 500 });
    const leads = mixedLeads(40);
    const { listId, leadIds } = await listWithLeads(agent, leads.map((l) => l.input));
    const workers: WorkerProcess[] = [];
    try {
      workers.push(await startWorkerProcess(workerEnv(), FAST_WORKER));
      const created = await agent.post('/api/enrichment/bulk', { listId });
      expect(created.status).toBe(201);
      const { jobId } = created.body;

      // Twice: let some batches commit, hold the providers so a batch is surely in flight, kill the worker.
      for (const threshold of [BATCH, 4 * BATCH]) {
        await eventually(() => agent.get(`/api/enrichment/bulk/${jobId}`), (r) => r.body.processedLeads >= threshold, {
          what: `bulk enrichment job ${jobId} past ${threshold} leads`,
          timeoutMs: 120_000,
        });
        const seen = world.providers.pdl.requests.length + world.providers.lusha.requests.length;
        world.providers.pdl.setMode({ kind: 'delay', ms: 60_000 });
        world.providers.lusha.setMode({ kind: 'delay', ms: 60_000 });
        await eventually(
          async () => world.providers.pdl.requests.length + world.providers.lusha.requests.length,
          (n) => n > seen,
          { what: 'a provider request held in flight', intervalMs: 20 },
        );
        await workers.at(-1)!.kill();
        world.providers.pdl.setMode({ kind: 'normal' });
        world.providers.lusha.setMode({ kind: 'normal' });
        workers.push(await startWorkerProcess(workerEnv(), FAST_WORKER));
      }

      const job = await settledJob(agent, jobId, 180_000);
      const expected = expectedCharges(jobId, leads, leadIds);
      const worth = -[...expected.values()].reduce((a, b) => a + b, 0);
      expect(job).toMatchObject({ status: 'completed', processedLeads: 40, skippedCount: 0, creditsUsed: worth });

      // Row by row: each datum charged once, nothing else charged; ledger, balance and creditsUsed agree.
      const ledger = await ledgerOf(h, organizationId);
      expect(chargesOf(ledger.rows)).toEqual(expected);
      expect(ledger.balance).toBe(500 - worth);
      expect(ledger.sum).toBe(ledger.balance);
      expect((await agent.get('/api/credits')).body.balance).toBe(500 - worth);

      // The killed attempts really were retried.
      const history = await h.temporal.workflow.getHandle(`enrichment-${jobId}`).fetchHistory();
      const retried = (history.events ?? []).filter((e) => (e.activityTaskStartedEventAttributes?.attempt ?? 1) > 1);
      expect(retried.length).toBeGreaterThanOrEqual(2);

      // No process ever wrote a provider key.
      const output = workers.map((w) => w.output()).join('\n');
      expect(output).toContain('"msg":"worker running"');
      for (const key of Object.values(world.providers.keys)) expect(output).not.toContain(key);
    } finally {
      for (const worker of workers) await worker.kill();
    }
  });
});

describe('enrichBulkBatch activity', () => {
  it('commits a batch once: a retry after the commit, or a duplicate running at the same time, charges nothing more', async () => {
    const { agent, organizationId } = await h.signup({ credits: 100 });
    const leads = mixedLeads(2 * BATCH);
    const { listId, leadIds } = await listWithLeads(agent, leads.map((l) => l.input));
    const em = h.orm.em.fork();
    const job = await createBulkJob(em, {
      organizationId,
      listId,
      fields: ['workEmail', 'personalEmail', 'phone'],
      ...(await listSnapshot(em, listId)),
    });
    const activities = enrichmentActivities(withFastProviders(createActivityDeps(h.config, h.orm)));
    const env = new MockActivityEnvironment();
    await env.run(activities.beginBulkEnrichment, { jobId: job.id });

    const first = (await env.run(activities.enrichBulkBatch, { jobId: job.id, after: null })) as BatchStep;
    expect(first).toEqual({ cursor: leadIds[BATCH - 1], done: false });
    const afterFirst = await ledgerOf(h, organizationId);

    // The worker died after the commit, before Temporal heard of it: the retry sees the cursor moved on.
    world.providers.resetAll();
    const retry = await env.run(activities.enrichBulkBatch, { jobId: job.id, after: null });
    expect(retry).toEqual(first);
    expect(world.providers.pdl.requests.length + world.providers.lusha.requests.length).toBe(0);
    expect(await ledgerOf(h, organizationId)).toEqual(afterFirst);

    // Two attempts of the next batch at once (a zombie and its retry): exactly one commits.
    const twins = await Promise.all([
      new MockActivityEnvironment().run(activities.enrichBulkBatch, { jobId: job.id, after: first.cursor }),
      new MockActivityEnvironment().run(activities.enrichBulkBatch, { jobId: job.id, after: first.cursor }),
    ]);
    expect(twins).toEqual([
      { cursor: leadIds[2 * BATCH - 1], done: true },
      { cursor: leadIds[2 * BATCH - 1], done: true },
    ]);
    const ledger = await ledgerOf(h, organizationId);
    expect(chargesOf(ledger.rows)).toEqual(expectedCharges(job.id, leads, leadIds));
    const [row] = await h.sql(`select status, processed_leads, credits_used from enrichment_job where id = ?`, [job.id]);
    expect(row).toEqual({ status: 'completed', processed_leads: 2 * BATCH, credits_used: 100 - ledger.balance });
    expect(ledger.sum).toBe(ledger.balance);
  });
});

describe('settleEnrichmentProfile activity', () => {
  it('charges a single enrichment once and answers the same when retried', async () => {
    const { organizationId } = await h.signup({ credits: 10 });
    const activities = enrichmentActivities(withFastProviders(createActivityDeps(h.config, h.orm)));
    const url = world.profile('settle-twice');
    world.providers.pdl.fixtures.people.set(url, { first_name: 'Sam', work_email: world.mailbox(MAIL.company), mobile_phone: nextPhone() });
    const input = { requestId: crypto.randomUUID(), organizationId, networkUrl: url };
    const env = new MockActivityEnvironment();
    const lookup = (await env.run(activities.lookupEnrichmentProfile, input)) as Awaited<ReturnType<typeof activities.lookupEnrichmentProfile>>;
    const settle = () => env.run(activities.settleEnrichmentProfile, { ...input, lookup });
    const [first, concurrent] = await Promise.all([settle(), settle()]);
    const retried = await settle();
    expect(first).toMatchObject({ success: true, creditsUsed: 3, withheld: [] });
    expect(concurrent).toEqual(first);
    expect(retried).toEqual(first);
    const ledger = await ledgerOf(h, organizationId);
    expect([...chargesOf(ledger.rows).keys()].sort()).toEqual([`enrich:${input.requestId}:phone`, `enrich:${input.requestId}:workEmail`]);
    expect(ledger.balance).toBe(7);
  });
});
