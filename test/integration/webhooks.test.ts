import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, expectError } from '../support/agent.ts';
import { createKey } from '../support/auth-cases.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let open: Harness;
let strict: Harness;
beforeAll(async () => {
  // A receiver on loopback needs both allowances; `strict` runs with the production defaults.
  open = await startHarness({ env: { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' } });
  strict = await startHarness();
});
afterAll(async () => {
  await open?.stop();
  await strict?.stop();
});

const body = { url: 'http://127.0.0.1:9/hooks', events: ['verification.completed', 'enrichment.completed'], description: 'CRM' };

describe('/api/webhooks endpoints', () => {
  it('creates an endpoint with a secret shown once, and never shows or stores the secret in clear afterwards', async () => {
    const { agent } = await open.signup();
    const created = await agent.post('/api/webhooks', body);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      url: body.url,
      events: body.events,
      description: 'CRM',
      createdAt: expect.any(String),
      disabledAt: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    expect(Buffer.from(created.body.secret.slice(6), 'base64')).toHaveLength(32);
    const list = await agent.get('/api/webhooks');
    expect(list.body.data).toEqual([{ ...created.body, secret: undefined }].map(({ secret: _s, ...rest }) => rest));
    expect(list.text).not.toContain(created.body.secret.slice(6));
    const [row] = await open.sql(`select * from webhook_endpoint where id = ?`, [created.body.id]);
    expect(JSON.stringify(row)).not.toContain(created.body.secret.slice(6));
  });

  it('takes an API key with webhooks:write, refuses one without it (403), and keeps organizations apart (404)', async () => {
    const { agent } = await open.signup();
    const { key } = await createKey(agent, ['webhooks:write']);
    const { key: lacking } = await createKey(agent, ['leads:read']);
    const client = new Agent(open.app);
    const created = await client.post('/api/webhooks', { ...body, events: ['*'] }, { 'x-api-key': key });
    expect(created.status).toBe(201);
    expect((await client.get('/api/webhooks', { 'x-api-key': key })).body.data.map((e: { id: string }) => e.id)).toEqual([created.body.id]);
    expect(expectError(await client.get('/api/webhooks', { 'x-api-key': lacking }), 403, 'forbidden').details.requiredScope).toBe('webhooks:write');
    expectError(await client.get('/api/webhooks'), 401, 'unauthorized');

    const { agent: stranger } = await open.signup();
    expectError(await stranger.delete(`/api/webhooks/${created.body.id}`), 404, 'not_found');
    expect((await stranger.get('/api/webhooks')).body.data).toEqual([]);
    expect((await client.delete(`/api/webhooks/${created.body.id}`, { 'x-api-key': key })).status).toBe(204);
    expect((await agent.get('/api/webhooks')).body.data).toEqual([]);
  });

  it('refuses unknown events and an empty event list (400)', async () => {
    const { agent } = await open.signup();
    expectError(await agent.post('/api/webhooks', { ...body, events: ['verification.started'] }), 400, 'validation_error');
    expectError(await agent.post('/api/webhooks', { ...body, events: [] }), 400, 'validation_error');
  });

  it('refuses link-local and cloud metadata addresses whatever the configuration (400)', async () => {
    const { agent } = await open.signup();
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://[fe80::1]/x', 'http://[fd00:ec2::254]/x', 'http://[::ffff:169.254.169.254]/x']) {
      const error = expectError(await agent.post('/api/webhooks', { ...body, url }), 400, 'validation_error');
      expect(error.details[0].path).toBe('json.url');
    }
  });

  it('by default refuses plain http:// and loopback or private addresses (400)', async () => {
    const { agent } = await strict.signup();
    for (const url of ['http://hooks.example.com/x', 'https://127.0.0.1/x', 'https://10.1.2.3/x', 'https://192.168.0.10/x', 'https://[::1]/x', 'https://localhost/x', 'not a url']) {
      expectError(await agent.post('/api/webhooks', { ...body, url }), 400, 'validation_error');
    }
    expect((await agent.get('/api/webhooks')).body.data).toEqual([]);
  });
});
