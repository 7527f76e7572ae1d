import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Agent, expectError } from '../support/agent.ts';
import { createKey } from '../support/auth-cases.ts';
import { ledgerOf } from '../support/enrichment/helpers.ts';
import { MAIL, startEnrichmentWorld, withFastProviders, type EnrichmentWorld } from '../support/enrichment/world.ts';
import { startHarness, type Harness } from '../support/harness.ts';

let world: EnrichmentWorld;
let h: Harness;

beforeAll(async () => {
  world = await startEnrichmentWorld({ ipBase: 77 });
  h = await startHarness({ env: world.env, worker: true, deps: withFastProviders });
});
afterAll(async () => {
  await h?.stop();
  await world?.stop();
});
beforeEach(() => world.providers.resetAll());

const keyed = (key: string) => ({ 'idempotency-key': key });
let n = 0;
const newKey = () => `key-${process.pid}-${++n}-${Date.now()}`;

async function newList(agent: Agent) {
  const list = await agent.post('/api/lists', { name: 'Prospects' });
  return list.body.id as string;
}

describe('Idempotency-Key (CONTRACT §9.2)', () => {
  it('replays the first response of a lead creation, with Idempotency-Replayed, and creates the leads once', async () => {
    const { agent } = await h.signup();
    const listId = await newList(agent);
    const key = newKey();
    const body = { leads: [{ email: 'one@acme.test' }, { email: 'two@acme.test' }] };
    const first = await agent.post(`/api/lists/${listId}/leads`, body, keyed(key));
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotency-replayed')).toBeNull();
    const again = await agent.post(`/api/lists/${listId}/leads`, body, keyed(key));
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    // The replay is a response of its own: its own request id.
    expect(again.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(again.body).toEqual(first.body);
    const [{ count }] = await h.sql(`select count(*)::int as count from lead where list_id = ?`, [listId]);
    expect(count).toBe(2);
  });

  it('refuses the same key with a different body or path (422 idempotency_key_reused)', async () => {
    const { agent } = await h.signup();
    const listId = await newList(agent);
    const otherList = await newList(agent);
    const key = newKey();
    expect((await agent.post(`/api/lists/${listId}/leads`, { leads: [{ email: 'a@acme.test' }] }, keyed(key))).status).toBe(201);
    const body = expectError(await agent.post(`/api/lists/${listId}/leads`, { leads: [{ email: 'b@acme.test' }] }, keyed(key)), 422, 'unprocessable');
    expect(body.details.reason).toBe('idempotency_key_reused');
    const path = expectError(await agent.post(`/api/lists/${otherList}/leads`, { leads: [{ email: 'a@acme.test' }] }, keyed(key)), 422, 'unprocessable');
    expect(path.details.reason).toBe('idempotency_key_reused');
    const [{ count }] = await h.sql(`select count(*)::int as count from lead where list_id in (?, ?)`, [listId, otherList]);
    expect(count).toBe(1);
  });

  it('refuses a key that is empty, too long or not printable ASCII (400)', async () => {
    const { agent } = await h.signup();
    const listId = await newList(agent);
    for (const key of ['x'.repeat(256), 'clé', 'tab\there']) {
      expectError(await agent.post(`/api/lists/${listId}/leads`, { leads: [{ email: 'a@acme.test' }] }, keyed(key)), 400, 'validation_error');
    }
    const [{ count }] = await h.sql(`select count(*)::int as count from lead where list_id = ?`, [listId]);
    expect(count).toBe(0);
  });

  it('answers 409 request_in_progress while the first request with the key is still running', async () => {
    const { agent, organizationId } = await h.signup();
    const listId = await newList(agent);
    const key = newKey();
    const body = JSON.stringify({ leads: [{ email: 'a@acme.test' }] });
    const { createHash } = await import('node:crypto');
    // The first request holds the key (claimed, no response yet), as it does while its handler runs.
    await h.sql(
      `insert into idempotency_key (id, organization_id, key, method, path, body_hash, created_at) values (gen_random_uuid(), ?, ?, 'POST', ?, ?, now())`,
      [organizationId, key, `/api/lists/${listId}/leads`, createHash('sha256').update(body).digest('hex')],
    );
    const res = await agent.post(`/api/lists/${listId}/leads`, JSON.parse(body), keyed(key));
    expect(expectError(res, 409, 'conflict').details.reason).toBe('request_in_progress');
    // A retry while the first runs is told when to come back (CONTRACT §9.2, like every 429).
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('starts one bulk enrichment job for concurrent duplicates: the others are 409 request_in_progress or replays', async () => {
    const { agent } = await h.signup({ credits: 100 });
    const listId = await newList(agent);
    await agent.post(`/api/lists/${listId}/leads`, { leads: [{ networkUrl: world.profile('bulk') }] });
    const key = newKey();
    const answers = await Promise.all(Array.from({ length: 4 }, () => agent.post('/api/enrichment/bulk', { listId }, keyed(key))));
    for (const res of answers) {
      if (res.status === 409) {
        expect(res.body.error.details.reason).toBe('request_in_progress');
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      else expect(res.status).toBe(201);
    }
    const fresh = answers.filter((r) => r.status === 201 && r.headers.get('idempotency-replayed') === null);
    expect(fresh).toHaveLength(1);
    const [{ count }] = await h.sql(`select count(*)::int as count from enrichment_job where list_id = ?`, [listId]);
    expect(count).toBe(1);
    const later = await agent.post('/api/enrichment/bulk', { listId }, keyed(key));
    expect(later.headers.get('idempotency-replayed')).toBe('true');
    expect(later.body.jobId).toBe(fresh[0]!.body.jobId);
  });

  it('charges a replayed enrichment nothing and asks no provider again', async () => {
    const { agent, organizationId } = await h.signup({ credits: 10 });
    const url = world.profile('replayed');
    world.providers.pdl.fixtures.people.set(url, { first_name: 'jane', last_name: 'doe', work_email: world.mailbox(MAIL.company) });
    const key = newKey();
    const first = await agent.post('/api/enrichment/enrich', { networkUrl: url }, keyed(key));
    expect(first.status).toBe(200);
    const before = await ledgerOf(h, organizationId);
    expect(before.balance).toBeLessThan(10);
    const pdlCalls = world.providers.pdl.requests.length;
    const again = await agent.post('/api/enrichment/enrich', { networkUrl: url }, keyed(key));
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await ledgerOf(h, organizationId)).toEqual(before);
    expect(world.providers.pdl.requests.length).toBe(pdlCalls);
  });

  it('stores answers below 500 too: a 402 is replayed even after credits arrive', async () => {
    const { agent } = await h.signup();
    const key = newKey();
    const body = { networkUrl: world.profile('broke') };
    expectError(await agent.post('/api/enrichment/enrich', body, keyed(key)), 402, 'insufficient_credits');
    const again = await agent.post('/api/enrichment/enrich', body, keyed(key));
    expect(again.status).toBe(402);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
  });

  it('never stores a 5xx: the same key sent again runs the request again', async () => {
    const { agent } = await h.signup({ credits: 10 });
    const url = world.profile('outage');
    world.providers.pdl.fixtures.people.set(url, { first_name: 'jane', last_name: 'doe', work_email: world.mailbox(MAIL.company) });
    for (const provider of [world.providers.pdl, world.providers.hunter, world.providers.lusha]) provider.setMode({ kind: 'server-error', status: 503 });
    const key = newKey();
    const failed = await agent.post('/api/enrichment/enrich', { networkUrl: url }, keyed(key));
    expect(failed.status).toBe(503);
    world.providers.resetAll();
    const retried = await agent.post('/api/enrichment/enrich', { networkUrl: url }, keyed(key));
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotency-replayed')).toBeNull();
    expect(retried.body.success).toBe(true);
  }, 60_000);

  it('holds on external routes, per organization: a key sent twice starts one verification job', async () => {
    const { agent } = await h.signup();
    const listId = await newList(agent);
    await agent.post(`/api/lists/${listId}/leads`, { leads: [{ email: 'a@acme.test' }] });
    const { key: apiKey } = await createKey(agent, ['verification:write']);
    const client = new Agent(h.app);
    const key = newKey();
    const body = { listId, verificationMethod: 'smtp_only' };
    const first = await client.post('/api/external/verification/jobs', body, { 'x-api-key': apiKey, ...keyed(key) });
    const again = await client.post('/api/external/verification/jobs', body, { 'x-api-key': apiKey, ...keyed(key) });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    // Another organization's use of the same key is its own.
    const { agent: stranger } = await h.signup();
    const strangerList = await newList(stranger);
    const res = await stranger.post(`/api/lists/${strangerList}/leads`, { leads: [{ email: 'x@acme.test' }] }, keyed(key));
    expect(res.status).toBe(201);
    expect(res.headers.get('idempotency-replayed')).toBeNull();
  });

  it('replays a lead CSV import sent again with a new multipart boundary, imports once, and refuses another file under the key', async () => {
    const { agent } = await h.signup();
    const listId = await newList(agent);
    const key = newKey();
    const form = (csv: string) => {
      const data = new FormData();
      data.append('file', new Blob([csv], { type: 'text/csv' }), 'leads.csv');
      return data;
    };
    const csv = 'email,first_name\nann@acme.test,Ann\nbob@acme.test,Bob\n';
    const first = await agent.send('POST', `/api/lists/${listId}/leads/import`, { body: form(csv), headers: keyed(key) });
    expect(first.status).toBe(201);
    // A FormData is serialized with a fresh random boundary each time: the bytes differ, the upload does not.
    const again = await agent.send('POST', `/api/lists/${listId}/leads/import`, { body: form(csv), headers: keyed(key) });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const other = await agent.send('POST', `/api/lists/${listId}/leads/import`, { body: form('email\ncid@acme.test\n'), headers: keyed(key) });
    expect(expectError(other, 422, 'unprocessable').details.reason).toBe('idempotency_key_reused');
    const [{ count }] = await h.sql(`select count(*)::int as count from lead where list_id = ?`, [listId]);
    expect(count).toBe(2);
  });

  it('starts one scrape job for an upload sent twice under one key', async () => {
    const { agent, organizationId } = await h.signup();
    const key = newKey();
    const form = () => {
      const data = new FormData();
      data.append('file', new Blob(['company\nAcme\nGlobex\n'], { type: 'text/csv' }), 'companies.csv');
      data.append('name', 'Prospects');
      return data;
    };
    const first = await agent.send('POST', '/api/scrape/jobs', { body: form(), headers: keyed(key) });
    const again = await agent.send('POST', '/api/scrape/jobs', { body: form(), headers: keyed(key) });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body.job.id).toBe(first.body.job.id);
    const [{ count }] = await h.sql(`select count(*)::int as count from scrape_job where organization_id = ?`, [organizationId]);
    expect(count).toBe(1);
  });

  it('stores the answer to an upload refused before its body was read (404), and replays it', async () => {
    const { agent } = await h.signup();
    const key = newKey();
    const form = () => {
      const data = new FormData();
      data.append('file', new Blob(['email\nann@acme.test\n'], { type: 'text/csv' }), 'leads.csv');
      return data;
    };
    const path = `/api/lists/${'0'.repeat(8)}-0000-7000-8000-${'0'.repeat(12)}/leads/import`;
    expectError(await agent.send('POST', path, { body: form(), headers: keyed(key) }), 404, 'not_found');
    const again = await agent.send('POST', path, { body: form(), headers: keyed(key) });
    expectError(again, 404, 'not_found');
    expect(again.headers.get('idempotency-replayed')).toBe('true');
  });

  it('documents the Idempotency-Key header on the routes that honour it', async () => {
    const doc = (await new Agent(h.app).get('/openapi.json')).body;
    const header = (path: string) =>
      (doc.paths[path].post.parameters ?? []).some((p: { in: string; name: string }) => p.in === 'header' && p.name === 'Idempotency-Key');
    for (const path of ['/api/enrichment/bulk', '/api/enrichment/enrich', '/api/verification/jobs', '/api/external/enrichment/bulk', '/api/external/lists/{listId}/leads']) {
      expect(header(path), path).toBe(true);
    }
    expect(header('/api/external/verify')).toBe(false);
    for (const path of ['/api/lists/{listId}/leads/import', '/api/scrape/jobs']) {
      expect(header(path), path).toBe(true);
      expect(doc.paths[path].post.responses['201'].headers['Idempotency-Replayed'].schema).toEqual({ type: 'string', enum: ['true'] });
    }
  });
});
