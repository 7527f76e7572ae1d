import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MAIL, startEnrichmentWorld, type EnrichmentWorld } from '../support/enrichment/world.ts';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { listWithEmails, startJob, waitForJob } from '../support/verification.ts';
import { signatureValid, startWebhookReceiver } from '../support/webhook-receiver.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';

let world: EnrichmentWorld;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let h: Harness;
let workerEnv: Record<string, string>;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  world = await startEnrichmentWorld({ ipBase: 92 });
  receiver = await startWebhookReceiver();
  const taskQueue = `test-webhook-kill-${randomUUID()}`;
  const webhooks = {
    WEBHOOK_ALLOW_INSECURE: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    // Long enough that the worker is surely killed during the wait after the first attempt.
    WEBHOOK_RETRY_FIRST: '5s',
    WEBHOOK_RETRY_MAX: '10s',
    TEMPORAL_TASK_QUEUE: taskQueue,
  };
  workerEnv = { ...world.env, ...webhooks, DATABASE_URL: inject('databaseUrl'), TEMPORAL_ADDRESS: inject('temporalAddress') };
  // The API only: the workers are separate processes on the same task queue.
  h = await startHarness({ env: { ...world.env, ...webhooks } });
});
afterAll(async () => {
  for (const worker of workers) await worker.kill();
  await h?.stop();
  await receiver?.close();
  await world?.stop();
});

describe('webhook delivery across a worker kill (CONTRACT §9.3)', () => {
  // Two worker processes start, and the backoff waits 5 s by design: the settling wait alone may take 120 s on a loaded machine.
  it('completes the delivery with the same webhook-id after the worker died during the backoff wait', { timeout: 180_000 }, async () => {
    workers.push(await startWorkerProcess(workerEnv));
    const { agent } = await h.signup();
    const path = `/hooks/${randomUUID()}`;
    receiver.reply(path, 500);
    const endpoint = (await agent.post('/api/webhooks', { url: receiver.url(path), events: ['verification.completed'] })).body;
    const listId = await listWithEmails(agent, [world.mailbox(MAIL.company)]);
    const job = await startJob(agent, listId, 'smtp_only');
    await waitForJob(agent, job.id, (j) => j.verificationStage === 'completed');

    const log = async () => (await agent.get(`/api/webhooks/${endpoint.id}/deliveries`)).body;
    const waiting = await eventually(log, (page) => page.data[0]?.attempts === 1, { what: 'the first delivery attempt' });
    expect(waiting.data[0]).toMatchObject({ status: 'pending', lastStatusCode: 500 });
    // The attempt is stored before the worker logs it: killed at once, the worker may not have written the line yet.
    await eventually(async () => workers[0]!.output(), (output) => output.includes('webhook attempt failed'), { what: 'the first worker’s log of the attempt' });
    await workers[0]!.kill();
    expect(workers[0]!.alive()).toBe(false);

    workers.push(await startWorkerProcess(workerEnv));
    const done = await eventually(log, (page) => page.data[0].status !== 'pending', { what: 'the delivery settled', timeoutMs: 120_000 });
    expect(done.data[0]).toMatchObject({ status: 'succeeded', attempts: 2, lastStatusCode: 200, eventId: waiting.data[0].eventId });
    const sent = receiver.to(path);
    expect(sent.map((w) => w.headers['webhook-id'])).toEqual([waiting.data[0].eventId, waiting.data[0].eventId]);
    for (const w of sent) expect(signatureValid(endpoint.secret, w)).toBe(true);
    // The workers logged the attempts, never the secret.
    const output = workers.map((w) => w.output()).join('\n');
    expect(output).toContain('webhook attempt failed');
    expect(output).not.toContain(endpoint.secret.slice('whsec_'.length));
  });
});
