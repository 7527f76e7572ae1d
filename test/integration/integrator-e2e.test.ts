import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../support/agent.ts';
import { createKey } from '../support/auth-cases.ts';
import { chargesOf, ledgerOf } from '../support/enrichment/helpers.ts';
import { MAIL, startEnrichmentWorld, withFastProviders, type EnrichmentWorld } from '../support/enrichment/world.ts';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { signatureValid, startWebhookReceiver } from '../support/webhook-receiver.ts';

let world: EnrichmentWorld;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let h: Harness;

beforeAll(async () => {
  world = await startEnrichmentWorld({ ipBase: 93 });
  receiver = await startWebhookReceiver();
  h = await startHarness({ env: { ...world.env, WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' }, worker: true, deps: withFastProviders });
});
afterAll(async () => {
  await h?.stop();
  await receiver?.close();
  await world?.stop();
});

describe("the integrator's session (issue #12, done when)", () => {
  it('with only an API key: verifies an address, runs a bulk verification and a bulk enrichment each sent twice (one job, one charge), and learns both finished from signed webhooks', async () => {
    // The dashboard's one part: the key.
    const { agent, organizationId } = await h.signup({ credits: 100 });
    const { key } = await createKey(agent, ['lists:write', 'leads:write', 'verification:write', 'verification:read', 'enrichment:write', 'webhooks:write']);

    const script = new Agent(h.app);
    script.origin = null;
    const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      script.send(method, path, { body, headers: { 'x-api-key': key, ...headers } });

    const path = `/hooks/${randomUUID()}`;
    const endpoint = await call('POST', '/api/webhooks', { url: receiver.url(path), events: ['verification.completed', 'enrichment.completed'] });
    expect(endpoint.status).toBe(201);
    const secret = endpoint.body.secret as string;

    const single = await call('POST', '/api/external/verify', { email: world.mailbox(MAIL.company) });
    expect(single.status).toBe(200);
    expect(single.body.result).toBe('Valid');

    const list = await call('POST', '/api/external/lists', { name: 'From the CRM' });
    const profile = world.profile('e2e');
    world.providers.pdl.fixtures.people.set(profile, { first_name: 'Ada', work_email: world.mailbox(MAIL.company) });
    const leads = await call('POST', `/api/external/lists/${list.body.id}/leads`, { leads: [{ email: world.mailbox(MAIL.company), networkUrl: profile }, { email: world.nobody(MAIL.company) }] });
    expect(leads.status).toBe(201);

    const verification = { listId: list.body.id, verificationMethod: 'smtp_only' };
    const verifyKey = { 'idempotency-key': `verify-${randomUUID()}` };
    const firstVerification = await call('POST', '/api/external/verification/jobs', verification, verifyKey);
    const againVerification = await call('POST', '/api/external/verification/jobs', verification, verifyKey);
    expect(firstVerification.status).toBe(201);
    expect(againVerification.status).toBe(201);
    expect(againVerification.headers.get('idempotency-replayed')).toBe('true');
    expect(againVerification.body.id).toBe(firstVerification.body.id);

    const enrichKey = { 'idempotency-key': `enrich-${randomUUID()}` };
    const firstEnrichment = await call('POST', '/api/external/enrichment/bulk', { listId: list.body.id, fields: ['workEmail'] }, enrichKey);
    const againEnrichment = await call('POST', '/api/external/enrichment/bulk', { listId: list.body.id, fields: ['workEmail'] }, enrichKey);
    expect(firstEnrichment.status).toBe(201);
    expect(againEnrichment.headers.get('idempotency-replayed')).toBe('true');
    expect(againEnrichment.body.jobId).toBe(firstEnrichment.body.jobId);

    // The script learns both finished from the webhooks, and checks each signature itself.
    const sent = await eventually(() => receiver.to(path), (hooks) => hooks.length >= 2, { what: 'two webhooks received', timeoutMs: 90_000 });
    for (const hook of sent) expect(signatureValid(secret, hook)).toBe(true);
    const events = new Map(sent.map((hook) => [JSON.parse(hook.body).type as string, JSON.parse(hook.body).data.job]));
    expect(events.get('verification.completed')).toMatchObject({ id: firstVerification.body.id, verificationStage: 'completed', smtpValidCount: 1, smtpInvalidCount: 1 });
    const enriched = events.get('enrichment.completed');
    expect(enriched).toMatchObject({ jobId: firstEnrichment.body.jobId, status: 'completed', successCount: 1 });
    expect(enriched.creditsUsed).toBeGreaterThan(0);
    expect((await call('GET', `/api/external/enrichment/bulk/${firstEnrichment.body.jobId}`)).body).toEqual(enriched);

    // One job of each kind, one charge.
    const [{ n: verifications }] = await h.sql(`select count(*)::int as n from verification_job where list_id = ?`, [list.body.id]);
    const [{ n: enrichments }] = await h.sql(`select count(*)::int as n from enrichment_job where list_id = ?`, [list.body.id]);
    expect([verifications, enrichments]).toEqual([1, 1]);
    const ledger = await ledgerOf(h, organizationId);
    const charged = [...chargesOf(ledger.rows).values()].reduce((sum, delta) => sum + delta, 0);
    expect(charged).toBe(-enriched.creditsUsed);
    expect(ledger.balance).toBe(100 - enriched.creditsUsed);
  });
});
