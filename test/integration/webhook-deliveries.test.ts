import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setLogLevel } from '../../src/log.ts';
import { Agent, expectError } from '../support/agent.ts';
import { createKey } from '../support/auth-cases.ts';
import { MAIL, startEnrichmentWorld, withFastProviders, type EnrichmentWorld } from '../support/enrichment/world.ts';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { listWithEmails, startJob, waitForJob } from '../support/verification.ts';
import { type ReceivedWebhook, signatureValid, startWebhookReceiver } from '../support/webhook-receiver.ts';

let world: EnrichmentWorld;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let h: Harness;
let strict: Harness;
/** Every line this process wrote (the in-process workers' and the API's logs among them). */
const written: string[] = [];
const secrets: string[] = [];

const loopback = { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' };

beforeAll(async () => {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      written.push(String(chunk));
      return write(chunk, ...rest);
    }) as typeof stream.write;
  }
  setLogLevel('debug');
  world = await startEnrichmentWorld({ ipBase: 91 });
  receiver = await startWebhookReceiver();
  // Short timeout and backoff so retries happen within a test; the shape of the schedule is the contract's.
  const timing = { WEBHOOK_TIMEOUT: '1500ms', WEBHOOK_RETRY_FIRST: '1s', WEBHOOK_RETRY_MAX: '2s' };
  h = await startHarness({ env: { ...world.env, ...loopback, ...timing, WEBHOOK_RETRY_FOR: '1h' }, worker: true, deps: withFastProviders });
  // Production's address rule at delivery (private refused), with retries that give up after 2 s.
  strict = await startHarness({ env: { ...world.env, WEBHOOK_ALLOW_INSECURE: 'true', ...timing, WEBHOOK_RETRY_FOR: '2s' }, worker: true, deps: withFastProviders });
});
afterAll(async () => {
  setLogLevel('error');
  await h?.stop();
  await strict?.stop();
  await receiver?.close();
  await world?.stop();
});

const newPath = () => `/hooks/${randomUUID()}`;

async function register(agent: Agent, path: string, events: string[], headers: Record<string, string> = {}) {
  const res = await agent.post('/api/webhooks', { url: receiver.url(path), events }, headers);
  expect(res.status).toBe(201);
  secrets.push(res.body.secret);
  return res.body as { id: string; secret: string };
}

/** A verification job of one existing mailbox, run to completion. */
async function completedVerification(agent: Agent) {
  const listId = await listWithEmails(agent, [world.mailbox(MAIL.company)]);
  const job = await startJob(agent, listId, 'smtp_only');
  return waitForJob(agent, job.id, (j) => j.verificationStage === 'completed');
}

async function deliveriesOf(agent: Agent, endpointId: string) {
  const res = await agent.get(`/api/webhooks/${endpointId}/deliveries`);
  expect(res.status).toBe(200);
  return res.body;
}

const settledDelivery = (agent: Agent, endpointId: string) =>
  eventually(
    () => deliveriesOf(agent, endpointId),
    (page) => page.data.length > 0 && page.data[0].status !== 'pending',
    { what: `a settled delivery to endpoint ${endpointId}` },
  ).then((page) => page.data[0]);

const headerOf = (w: ReceivedWebhook, name: string) => w.headers[name] as string;

describe('webhook delivery (CONTRACT §9.3)', () => {
  it('sends verification.completed signed per Standard Webhooks, with the job as its GET route shows it', async () => {
    const { agent } = await h.signup();
    const path = newPath();
    const endpoint = await register(agent, path, ['verification.completed']);
    const elsewhere = await register(agent, newPath(), ['scrape.completed']);
    const job = await completedVerification(agent);

    const delivery = await settledDelivery(agent, endpoint.id);
    expect(delivery).toEqual({
      id: expect.any(String),
      eventId: expect.any(String),
      type: 'verification.completed',
      status: 'succeeded',
      attempts: 1,
      lastStatusCode: 200,
      lastError: null,
      nextAttemptAt: null,
      createdAt: expect.any(String),
    });
    const [sent, ...more] = receiver.to(path);
    expect(more).toEqual([]);
    expect(signatureValid(endpoint.secret, sent!)).toBe(true);
    expect(signatureValid(elsewhere.secret, sent!)).toBe(false);
    expect(headerOf(sent!, 'webhook-id')).toBe(delivery.eventId);
    expect(Math.abs(Number(headerOf(sent!, 'webhook-timestamp')) - Date.now() / 1000)).toBeLessThan(300);
    expect(headerOf(sent!, 'content-type')).toBe('application/json');
    const body = JSON.parse(sent!.body);
    expect(body).toEqual({ id: delivery.eventId, type: 'verification.completed', createdAt: expect.any(String), data: { job } });
    expect((await agent.get(`/api/verification/jobs/${job.id}`)).body).toEqual(body.data.job);
    // Not subscribed to this event: nothing recorded or sent there.
    expect((await deliveriesOf(agent, elsewhere.id)).data).toEqual([]);
  });

  it('sends each state a job reaches to endpoints subscribed with *: awaiting_decision, then completed; scrape.completed', async () => {
    const { agent } = await h.signup();
    const path = newPath();
    const endpoint = await register(agent, path, ['*']);
    const listId = await listWithEmails(agent, [`someone@${MAIL.catchAll}`]);
    const job = await startJob(agent, listId, 'smtp_api_fallback');
    await waitForJob(agent, job.id, (j) => j.verificationStage === 'awaiting_decision');
    const types = async () => receiver.to(path).map((w) => JSON.parse(w.body));
    const [awaiting] = await eventually(types, (events) => events.length === 1, { what: 'the first webhook' });
    expect(awaiting).toMatchObject({ type: 'verification.awaiting_decision', data: { job: { id: job.id, verificationStage: 'awaiting_decision', smtpCatchAllCount: 1 } } });
    expect((await agent.post(`/api/verification/jobs/${job.id}/decision`, { decision: 'accept_current' })).status).toBe(200);
    await eventually(types, (events) => events.length === 2, { what: 'the second webhook' });

    const form = new FormData();
    form.append('file', new Blob(['company\nNobody Knows Inc\n'], { type: 'text/csv' }), 'companies.csv');
    const scrape = await agent.post('/api/scrape/jobs', form);
    expect(scrape.status).toBe(201);
    const events = await eventually(types, (all) => all.length === 3, { what: 'the third webhook', timeoutMs: 90_000 });
    expect(events.map((e) => e.type)).toEqual(['verification.awaiting_decision', 'verification.completed', 'scrape.completed']);
    expect(events[1].data.job).toMatchObject({ id: job.id, verificationStage: 'completed', userDecision: 'accept_current' });
    expect(events[2].data.job).toEqual({ ...(await agent.get(`/api/scrape/jobs/${scrape.body.job.id}`)).body, items: undefined });
    expect(events[2].data.job).not.toHaveProperty('items');
    const log = await deliveriesOf(agent, endpoint.id);
    expect(log.total).toBe(3);
    expect(log.data.map((d: { type: string }) => d.type)).toEqual(['scrape.completed', 'verification.completed', 'verification.awaiting_decision']);
  });

  it('delivers one event once to every endpoint subscribed to it, and to none subscribed to other types', async () => {
    const { agent } = await h.signup();
    const [all, completed, other] = [newPath(), newPath(), newPath()];
    const endpoints = [
      await register(agent, all, ['*']),
      await register(agent, completed, ['verification.completed']),
      await register(agent, other, ['scrape.completed']),
    ];
    await completedVerification(agent);
    const settled = await Promise.all(endpoints.slice(0, 2).map((e) => settledDelivery(agent, e.id)));
    expect(settled.map((d) => d.status)).toEqual(['succeeded', 'succeeded']);
    expect(receiver.to(all)).toHaveLength(1);
    expect(receiver.to(completed)).toHaveLength(1);
    // One event, two deliveries of it: the same webhook-id at both endpoints.
    expect(settled[1]!.eventId).toBe(settled[0]!.eventId);
    expect([all, completed].map((p) => headerOf(receiver.to(p)[0]!, 'webhook-id'))).toEqual([settled[0]!.eventId, settled[0]!.eventId]);
    expect((await deliveriesOf(agent, endpoints[2]!.id)).total).toBe(0);
    expect(receiver.to(other)).toHaveLength(0);
  });

  it('sends verification.failed when the job fails (here: its workflow cancelled by an operator)', async () => {
    const { agent } = await h.signup();
    const path = newPath();
    await register(agent, path, ['verification.failed', 'verification.completed']);
    const listId = await listWithEmails(agent, [`someone@${MAIL.catchAll}`]);
    const job = await startJob(agent, listId, 'smtp_api_fallback');
    await waitForJob(agent, job.id, (j) => j.verificationStage === 'awaiting_decision');
    // An operator cancels the workflow while it waits for the decision: the job fails.
    await h.temporal.workflow.getHandle(`verification-${job.id}`).cancel();
    const failed = await waitForJob(agent, job.id, (j) => j.verificationStage === 'failed');
    const [event] = await eventually(() => receiver.to(path).map((w) => JSON.parse(w.body)), (events) => events.length === 1, { what: 'one webhook' });
    expect(event).toMatchObject({ type: 'verification.failed', data: { job: { ...failed, failureReason: 'cancelled by an operator' } } });
  });

  it('retries after 500s with the same webhook-id, recording each attempt and when the next is due', async () => {
    const { agent } = await h.signup();
    const path = newPath();
    receiver.reply(path, 500, 503);
    const endpoint = await register(agent, path, ['*']);
    await completedVerification(agent);

    const waiting = await eventually(() => deliveriesOf(agent, endpoint.id), (page) => page.data[0]?.attempts >= 1, { what: 'the first attempt' });
    // Seen during the first wait (1 s; the log is polled every 50 ms).
    expect(waiting.data[0]).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: 500, lastError: 'answered HTTP 500' });
    expect(Date.parse(waiting.data[0].nextAttemptAt)).toBeGreaterThan(Date.parse(waiting.data[0].createdAt));
    const delivery = await settledDelivery(agent, endpoint.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 3, lastStatusCode: 200, lastError: null, nextAttemptAt: null });
    const sent = receiver.to(path);
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((w) => headerOf(w, 'webhook-id')))).toEqual(new Set([delivery.eventId]));
    expect(new Set(sent.map((w) => w.body)).size).toBe(1);
    for (const w of sent) expect(signatureValid(endpoint.secret, w)).toBe(true);
  });

  it('retries a receiver that does not answer within the timeout', async () => {
    const { agent } = await h.signup();
    const path = newPath();
    receiver.reply(path, 'hang');
    const endpoint = await register(agent, path, ['verification.completed']);
    await completedVerification(agent);

    const afterTimeout = await eventually(() => deliveriesOf(agent, endpoint.id), (page) => page.data[0]?.attempts >= 1, { what: 'the first attempt' });
    expect(afterTimeout.data[0]).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null, lastError: 'no answer within 1500 ms' });
    const delivery = await settledDelivery(agent, endpoint.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 2, lastStatusCode: 200 });
    const sent = receiver.to(path);
    expect(sent.map((w) => headerOf(w, 'webhook-id'))).toEqual([delivery.eventId, delivery.eventId]);
  });

  it('ends the delivery failed on a 410 and disables the endpoint: nothing more is sent there, a manual retry is refused', async () => {
    const { agent } = await h.signup();
    const path = newPath();
    receiver.reply(path, 410);
    const endpoint = await register(agent, path, ['*']);
    await completedVerification(agent);

    const delivery = await settledDelivery(agent, endpoint.id);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, lastStatusCode: 410, nextAttemptAt: null });
    const [listed] = (await agent.get('/api/webhooks')).body.data;
    expect(listed.disabledAt).toEqual(expect.any(String));

    // A second endpoint witnesses the next event: its delivery is created by the same step that skips the disabled one.
    const witness = await register(agent, newPath(), ['*']);
    await completedVerification(agent);
    await eventually(() => deliveriesOf(agent, witness.id), (page) => page.total === 1, { what: 'the witness delivery' });
    expect((await deliveriesOf(agent, endpoint.id)).total).toBe(1);
    const refused = expectError(await agent.post(`/api/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`), 409, 'invalid_state');
    expect(refused.details.currentState).toBe('disabled');
    expect(receiver.to(path)).toHaveLength(1);
  });

  it('sends a delivery again on a manual retry (202), with the same webhook-id', async () => {
    const { agent } = await h.signup();
    const path = newPath();
    const endpoint = await register(agent, path, ['verification.completed']);
    await completedVerification(agent);
    const delivery = await settledDelivery(agent, endpoint.id);
    expect(delivery.status).toBe('succeeded');

    const retried = await agent.post(`/api/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`);
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ id: delivery.id, status: 'pending' });
    await eventually(() => deliveriesOf(agent, endpoint.id), (page) => page.data[0].attempts === 2 && page.data[0].status === 'succeeded', {
      what: 'the retried delivery succeeded',
    });
    const sent = receiver.to(path);
    expect(sent.map((w) => headerOf(w, 'webhook-id'))).toEqual([delivery.eventId, delivery.eventId]);
    expect(sent[1]!.body).toBe(sent[0]!.body);
    expect(signatureValid(endpoint.secret, sent[1]!)).toBe(true);

    const { agent: stranger } = await h.signup();
    expectError(await stranger.post(`/api/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`), 404, 'not_found');
    expectError(await agent.post(`/api/webhooks/${endpoint.id}/deliveries/${randomUUID()}/retry`), 404, 'not_found');
    expectError(await agent.get(`/api/webhooks/${endpoint.id}/deliveries?limit=0`), 400, 'validation_error');
  });

  it('honours a manual retry that comes while an attempt is still waiting for its answer', async () => {
    const { agent } = await h.signup();
    const path = newPath();
    receiver.reply(path, { status: 200, afterMs: 1000 });
    const endpoint = await register(agent, path, ['verification.completed']);
    await completedVerification(agent);
    await eventually(() => receiver.to(path).length, (n) => n === 1, { what: 'the first attempt received' });
    const [delivery] = (await deliveriesOf(agent, endpoint.id)).data;
    // The first attempt is in flight and about to succeed; the retry must still send once more.
    expect((await agent.post(`/api/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`)).status).toBe(202);
    const done = await eventually(() => deliveriesOf(agent, endpoint.id), (page) => page.data[0].attempts === 2 && page.data[0].status !== 'pending', {
      what: 'the second attempt settled',
    });
    expect(done.data[0]).toMatchObject({ status: 'succeeded', lastStatusCode: 200 });
    expect(receiver.to(path).map((w) => w.headers['webhook-id'])).toEqual([delivery.eventId, delivery.eventId]);
  });

  it('checks the address again at every delivery: a loopback receiver is refused with a clear lastError, then the delivery fails', async () => {
    const { agent } = await strict.signup();
    const { key } = await createKey(agent, ['webhooks:write']);
    // Registered where loopback was allowed (the same database), as if the name resolved elsewhere back then.
    const path = newPath();
    const endpoint = await register(new Agent(h.app), path, ['verification.completed'], { 'x-api-key': key });
    await completedVerification(agent);

    const delivery = await settledDelivery(agent, endpoint.id);
    expect(delivery.status).toBe('failed');
    expect(delivery.attempts).toBeGreaterThanOrEqual(2);
    expect(delivery.lastStatusCode).toBeNull();
    expect(delivery.lastError).toBe('refused before sending: 127.0.0.1 resolves to a loopback or private address');
    expect(receiver.to(path)).toEqual([]);
  });

  it('shows the secret in no response but the creation, and writes it to no log line', async () => {
    const { agent } = await h.signup();
    const { key } = await createKey(agent, ['webhooks:write']);
    const path = newPath();
    receiver.reply(path, 500);
    const endpoint = await register(new Agent(h.app), path, ['*'], { 'x-api-key': key });
    await completedVerification(agent);
    const delivery = await settledDelivery(agent, endpoint.id);
    const responses = [
      await agent.get('/api/webhooks'),
      await agent.get(`/api/webhooks/${endpoint.id}/deliveries`),
      await agent.post(`/api/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`),
      await new Agent(h.app).get('/api/webhooks', { 'x-api-key': key }),
    ];
    for (const res of responses) expect(res.status).toBeLessThan(300);
    expect(written.some((line) => line.includes('webhook attempt failed'))).toBe(true);
    for (const secret of secrets) {
      const bare = secret.slice('whsec_'.length);
      for (const res of responses) expect(res.text).not.toContain(bare);
      expect(written.filter((line) => line.includes(bare))).toEqual([]);
    }
  });
});
