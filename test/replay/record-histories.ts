/**
 * `npm run histories:record`: runs every kind of job once, end to end, against the development sandbox's
 * stand-ins (mail world, search, verification and enrichment providers), and writes each workflow's
 * history to test/replay/histories/. workflow-replay.test.ts replays them against the current workflow
 * code, so a change that would break a job already running in production fails in CI. Record again only
 * when the histories should describe new code paths; keep the old files (running jobs still have them).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_PEOPLE, SANDBOX_SUFFIX, startSandbox, type Sandbox } from '../../src/sandbox/sandbox.ts';
import { workflowId } from '../../src/temporal/shared.ts';
import type { Agent } from '../support/agent.ts';
import { createKey } from '../support/auth-cases.ts';
import { settledJob } from '../support/enrichment/helpers.ts';
import { eventually } from '../support/eventually.ts';
import { scheduledActivities } from '../support/history.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';
import { ensureMaintenance, maintenanceWorkflowId } from '../../src/temporal/maintenance.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { jobOf, scrapeForm, upload, waitForStatus } from '../support/scrape.ts';
import { inStage, listWithEmails, startJob, waitForJob } from '../support/verification.ts';

const DIR = path.join(import.meta.dirname, 'histories');
const stamp = new Date().toISOString().slice(0, 10);

let sandbox: Sandbox;
let h: Harness;
let agent: Agent;

beforeAll(async () => {
  sandbox = await startSandbox({});
  h = await startHarness({
    worker: true,
    env: {
      ...sandbox.env,
      SIGNUP_CREDITS: '0',
      SMTP_PROBE_TIMEOUT_MS: '800',
      SMTP_GREYLIST_DELAY_MS: '200',
      SMTP_GREYLIST_SCHEDULE: '1s,2s',
      // The webhook receiver of the delivery recording listens on loopback over plain HTTP.
      WEBHOOK_ALLOW_INSECURE: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_FIRST: '1s',
    },
  });
  ({ agent } = await h.signup({ credits: 1000 }));
});
afterAll(async () => {
  await h?.stop();
  await sandbox?.stop();
});

/** The id of the first workflow of `type` Temporal lists: for workflows whose id the caller never sees. */
function firstOfType(type: string): Promise<string> {
  const find = async () => {
    for await (const run of h.temporal.workflow.list()) if (run.type === type) return run.workflowId;
    return '';
  };
  return eventually(find, (id) => id !== '', { what: `a ${type} run` });
}

async function save(name: string, workflowId: string) {
  const history = await h.temporal.workflow.getHandle(workflowId).fetchHistory();
  await writeFile(path.join(DIR, `${stamp}-${name}.json`), historyToJSON(history));
}

const person = ([first, last]: readonly [string, string]) => `${first}.${last}`.toLowerCase();
const addresses = [
  ...SANDBOX_PEOPLE.slice(0, 3).map((p) => `${person(p)}@acme.${SANDBOX_SUFFIX}`),
  `nobody@acme.${SANDBOX_SUFFIX}`,
  `${person(SANDBOX_PEOPLE[0])}@catchall.${SANDBOX_SUFFIX}`,
  `${person(SANDBOX_PEOPLE[1])}@greylist.${SANDBOX_SUFFIX}`,
  // Still greylisted when the short schedule below is spent: its timers and later attempts are recorded.
  `${person(SANDBOX_PEOPLE[2])}@postgrey.${SANDBOX_SUFFIX}`,
  `someone@blocked.${SANDBOX_SUFFIX}`,
  `someone@down.${SANDBOX_SUFFIX}`,
  `someone@nomail.${SANDBOX_SUFFIX}`,
  'not an address',
];

describe('record workflow histories', () => {
  it('verification: smtp_only, smtp_api_fallback with each decision, api_only', { timeout: 300_000 }, async () => {
    const listId = await listWithEmails(agent, addresses);
    const smtp = await startJob(agent, listId, 'smtp_only');
    await waitForJob(agent, smtp.id, inStage('completed'));
    await save('verification-smtp-only', workflowId('verification', smtp.id));

    for (const decision of ['accept_current', 'fill_all_gaps'] as const) {
      const job = await startJob(agent, listId, 'smtp_api_fallback');
      await waitForJob(agent, job.id, inStage('awaiting_decision'));
      expect((await agent.post(`/api/verification/jobs/${job.id}/decision`, { decision })).status).toBe(200);
      await waitForJob(agent, job.id, inStage('completed'));
      await save(`verification-fallback-${decision}`, workflowId('verification', job.id));
    }

    const api = await startJob(agent, listId, 'api_only');
    await waitForJob(agent, api.id, inStage('completed'));
    await save('verification-api-only', workflowId('verification', api.id));
  });

  it('verification: a list the planner has never seen, its lead statistics gathered beside the first slices', { timeout: 300_000 }, async () => {
    // Decided by DNS alone: 2,000 addresses are quick, and at least a thousand are what an analyze is worth.
    const listId = await listWithEmails(agent, Array.from({ length: 2000 }, (_, i) => `lead${i}@nomail.${SANDBOX_SUFFIX}`), 'Unseen');
    const job = await startJob(agent, listId, 'smtp_only');
    await waitForJob(agent, job.id, inStage('completed'));
    const id = workflowId('verification', job.id);
    expect(await scheduledActivities(h.temporal, id)).toContain('analyzeLeads');
    await save('verification-analyze-beside-slices', id);
  });

  it('verification: deferred addresses finished before the schedule ran out', { timeout: 300_000 }, async () => {
    // A worker of its own whose schedule's first wait outlasts the test: only the request ends it.
    const patient = await startHarness({
      worker: true,
      env: { ...sandbox.env, SMTP_PROBE_TIMEOUT_MS: '800', SMTP_GREYLIST_DELAY_MS: '200', SMTP_GREYLIST_SCHEDULE: '10m' },
    });
    try {
      const session = await patient.signup();
      const listId = await listWithEmails(session.agent, [...addresses, `finish-${Date.now()}@postgrey.${SANDBOX_SUFFIX}`]);
      const job = await startJob(session.agent, listId, 'smtp_api_fallback');
      await waitForJob(session.agent, job.id, (j) => j.nextRetryAt !== null);
      expect((await session.agent.post(`/api/verification/jobs/${job.id}/finish-deferred`)).status).toBe(202);
      await waitForJob(session.agent, job.id, inStage('awaiting_decision'));
      expect((await session.agent.post(`/api/verification/jobs/${job.id}/decision`, { decision: 'accept_current' })).status).toBe(200);
      await waitForJob(session.agent, job.id, inStage('completed'));
      const history = await patient.temporal.workflow.getHandle(workflowId('verification', job.id)).fetchHistory();
      await writeFile(path.join(DIR, `${stamp}-verification-finish-deferred.json`), historyToJSON(history));
    } finally {
      await patient.stop();
    }
  });

  it('scrape: a job paused and resumed, then completed', { timeout: 300_000 }, async () => {
    const rows = Array.from({ length: 200 }, (_, i) => `Company ${i},Head of Sales`).join('\n');
    const job = await upload(agent, scrapeForm(`company,role\n${rows}\n`, { fileName: 'companies.csv' }));
    expect((await agent.post(`/api/scrape/jobs/${job.id}/pause`)).status).toBe(200);
    expect((await agent.post(`/api/scrape/jobs/${job.id}/resume`)).status).toBe(200);
    await waitForStatus(agent, job.id, ['completed']);
    expect((await jobOf(agent, job.id)).status).toBe('completed');
    await save('scrape-paused-resumed', workflowId('scrape', job.id));
  });

  it('bulk enrichment of a list', { timeout: 300_000 }, async () => {
    const list = await agent.post('/api/lists', { name: 'enrich' });
    const leads = SANDBOX_PEOPLE.map(([first, last], i) => ({
      networkUrl: `https://www.linkedin.com/in/${first}-${last}-${i}`.toLowerCase(),
    }));
    expect((await agent.post(`/api/lists/${list.body.id}/leads`, { leads: [...leads, { firstName: 'Nobody' }] })).status).toBe(201);
    const bulk = await agent.post('/api/enrichment/bulk', { listId: list.body.id });
    expect(bulk.status).toBe(201);
    expect((await settledJob(agent, bulk.body.jobId)).status).toBe('completed');
    await save('enrichment-bulk', workflowId('enrichment', bulk.body.jobId));
  });

  it('job gone: a job of each kind deleted while its workflow runs', { timeout: 300_000 }, async () => {
    // Verification: deleted with its list while it waits for a later greylisting attempt. The earlier recordings
    // have outlived the postgrey host's 30 s for their addresses by now: a fresh one is greylisted again.
    const listId = await listWithEmails(agent, [...addresses, `gone-${Date.now()}@postgrey.${SANDBOX_SUFFIX}`]);
    const verification = await startJob(agent, listId, 'smtp_only');
    await waitForJob(agent, verification.id, (job) => job.deferredCount > 0);
    expect((await agent.delete(`/api/lists/${listId}`)).status).toBe(204);
    await h.temporal.workflow.getHandle(workflowId('verification', verification.id)).result();
    await save('verification-job-gone', workflowId('verification', verification.id));

    // Scrape: the job row deleted (as with its organization) as it starts.
    const rows = Array.from({ length: 50 }, (_, i) => `Gone ${i},Head of Sales`).join('\n');
    const scrape = await upload(agent, scrapeForm(`company,role\n${rows}\n`, { fileName: 'gone.csv' }));
    await h.sql('delete from scrape_job where id = ?', [scrape.id]);
    await h.temporal.workflow.getHandle(workflowId('scrape', scrape.id)).result();
    await save('scrape-job-gone', workflowId('scrape', scrape.id));

    // Bulk enrichment: deleted with its list as it starts.
    const list = await agent.post('/api/lists', { name: 'enrich gone' });
    expect((await agent.post(`/api/lists/${list.body.id}/leads`, { leads: [{ firstName: 'Gone' }] })).status).toBe(201);
    const bulk = await agent.post('/api/enrichment/bulk', { listId: list.body.id });
    expect(bulk.status).toBe(201);
    expect((await agent.delete(`/api/lists/${list.body.id}`)).status).toBe(204);
    await h.temporal.workflow.getHandle(workflowId('enrichment', bulk.body.jobId)).result();
    await save('enrichment-job-gone', workflowId('enrichment', bulk.body.jobId));
  });

  it('single verification of one address', { timeout: 120_000 }, async () => {
    const { key } = await createKey(agent, ['verification:write']);
    const email = `${person(SANDBOX_PEOPLE[4])}@acme.${SANDBOX_SUFFIX}`;
    const res = await agent.post('/api/external/verify', { email }, { 'x-api-key': key });
    expect(res.body).toMatchObject({ result: 'Valid', cached: false });
    await save('verify-single', await firstOfType('singleVerifyWorkflow'));
  });

  it('single enrichment of one profile', { timeout: 120_000 }, async () => {
    const [first, last] = SANDBOX_PEOPLE[5]!;
    const res = await agent.post('/api/enrichment/enrich', { networkUrl: `https://www.linkedin.com/in/${first}-${last}-single`.toLowerCase() });
    expect(res.status).toBe(200);
    await save('enrichment-single', await firstOfType('singleEnrichmentWorkflow'));
  });

  it('webhook delivery: a failed attempt, a timer, then a delivered one', { timeout: 120_000 }, async () => {
    const receiver = await startWebhookReceiver();
    try {
      receiver.reply('/recorded', 500);
      expect((await agent.post('/api/webhooks', { url: receiver.url('/recorded'), events: ['verification.completed'] })).status).toBe(201);
      const listId = await listWithEmails(agent, [`${person(SANDBOX_PEOPLE[3]!)}@acme.${SANDBOX_SUFFIX}`]);
      const job = await startJob(agent, listId, 'smtp_only');
      await waitForJob(agent, job.id, inStage('completed'));
      await eventually(() => receiver.to('/recorded').length, (n) => n >= 2, { what: 'the second attempt of the delivery' });
      const id = await firstOfType('webhookDeliveryWorkflow');
      await h.temporal.workflow.getHandle(id).result();
      await save('webhook-delivery', id);
    } finally {
      await receiver.close();
    }
  });

  it('maintenance: sweeps on its timer', { timeout: 120_000 }, async () => {
    const config = { TEMPORAL_TASK_QUEUE: h.config.TEMPORAL_TASK_QUEUE, CLEANUP_INTERVAL: 500 };
    const handle = h.temporal.workflow.getHandle(maintenanceWorkflowId(config.TEMPORAL_TASK_QUEUE));
    await ensureMaintenance(h.temporal, config);
    // Three sweeps and the timers between them; the workflow runs on until it is ended below.
    await eventually(() => handle.fetchHistory().then((history) => history.events?.filter((e) => e.activityTaskCompletedEventAttributes).length ?? 0), (n) => n >= 3, {
      what: 'three sweeps of the maintenance workflow',
    });
    await save('maintenance', maintenanceWorkflowId(config.TEMPORAL_TASK_QUEUE));
    await handle.terminate('recorded');
  });
});
