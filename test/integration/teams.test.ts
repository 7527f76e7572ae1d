/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies are asserted field by field */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, expectError } from '../support/agent.ts';
import { createKey } from '../support/auth-cases.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { SIGNUP_CREDITS: '25' } });
});
afterAll(() => h.stop());

const password = 'correct horse battery';
const newEmail = () => `u-${randomUUID()}@example.test`;

async function invite(owner: Agent) {
  const res = await owner.post('/api/organization/invites', {});
  expect(res.status).toBe(201);
  return res.body as { token: string; inviteUrl: string; expiresAt: string };
}

async function join(token: string, extra: Record<string, unknown> = {}) {
  const agent = new Agent(h.app);
  const email = newEmail();
  const res = await agent.post('/api/auth/signup', { email, password, name: 'Mia Member', inviteToken: token, ...extra });
  return { agent, email, res };
}

/** An owner's organization with one member who joined through an invite. */
async function team() {
  const owner = await h.signup();
  const { token } = await invite(owner.agent);
  const member = await join(token);
  expect(member.res.status).toBe(201);
  return { owner, member: { agent: member.agent, id: member.res.body.user.id as string, email: member.email } };
}

describe('roles (CONTRACT §15)', () => {
  it('the organization’s signer-up is its owner, in signup, login and me', async () => {
    const agent = new Agent(h.app);
    const email = newEmail();
    const signup = await agent.post('/api/auth/signup', { email, password, organizationName: 'Acme' });
    expect(signup.body.user.role).toBe('owner');
    expect((await agent.get('/api/auth/me')).body.user.role).toBe('owner');
    const login = await new Agent(h.app).post('/api/auth/login', { email, password });
    expect(login.body.user).toMatchObject({ email, role: 'owner' });
  });
});

describe('POST /api/organization/invites and signup with inviteToken', () => {
  it('makes a single-use link to the dashboard’s join page, valid 7 days; the token is stored only as a hash', async () => {
    const owner = await h.signup();
    const before = Date.now();
    const created = await invite(owner.agent);
    expect(created.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The origin the request came to (PUBLIC_ORIGIN when set): the service serves the dashboard.
    expect(created.inviteUrl).toBe(`http://localhost/#/join?token=${created.token}`);
    const ttl = Date.parse(created.expiresAt) - before;
    expect(ttl).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(ttl).toBeLessThanOrEqual(7 * 86_400_000 + 60_000);
    const stored = await h.sql(`select token_hash from organization_invite where organization_id = ?`, [owner.organizationId]);
    expect(stored).toHaveLength(1);
    expect(stored[0].token_hash).not.toContain(created.token);
    expect(Object.keys((await owner.agent.post('/api/organization/invites')).body)).toEqual(['token', 'inviteUrl', 'expiresAt']);
  });

  it('joins the inviting organization as a member, without signup credits; the token works once', async () => {
    const owner = await h.signup();
    const { token } = await invite(owner.agent);
    const { agent, email, res } = await join(token);
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({ email, name: 'Mia Member', role: 'member' });
    expect(res.body.organization).toMatchObject({ id: owner.organizationId, name: 'Acme', creditBalance: 25 });
    const ledger = await h.sql(`select delta from credit_ledger where organization_id = ?`, [owner.organizationId]);
    expect(ledger).toEqual([{ delta: 25 }]);
    expect((await agent.get('/api/auth/me')).body.user.role).toBe('member');

    // The member sees the organization's lists.
    const list = (await owner.agent.post('/api/lists', { name: 'Shared' })).body;
    expect((await agent.get(`/api/lists/${list.id}`)).body.name).toBe('Shared');

    const reused = expectError((await join(token)).res, 400, 'validation_error');
    expect(reused.details[0].path).toBe('json.inviteToken');
  });

  it('refuses expired, unknown and mixed signups with 400, creating nothing', async () => {
    const owner = await h.signup();
    const { token } = await invite(owner.agent);
    await h.sql(`update organization_invite set expires_at = now() - interval '1 second' where organization_id = ?`, [owner.organizationId]);
    expectError((await join(token)).res, 400, 'validation_error');
    expectError((await join('not-a-token')).res, 400, 'validation_error');
    const fresh = await invite(owner.agent);
    expectError((await join(fresh.token, { organizationName: 'Other' })).res, 400, 'validation_error');
    expectError(await new Agent(h.app).post('/api/auth/signup', { email: newEmail(), password }), 400, 'validation_error');
    const [{ n }] = await h.sql(`select count(*)::int as n from app_user where organization_id = ?`, [owner.organizationId]);
    expect(n).toBe(1);
    // The refused ones did not use it up.
    expect((await join(fresh.token)).res.status).toBe(201);
  });

  it('admits one of three signups racing for the same invite', async () => {
    const owner = await h.signup();
    const { token } = await invite(owner.agent);
    const results = await Promise.all([join(token), join(token), join(token)]);
    expect(results.map((r) => r.res.status).sort()).toEqual([201, 400, 400]);
  });
});

describe('members', () => {
  it('lists the organization’s users, oldest first, to owners and members', async () => {
    const { owner, member } = await team();
    const expected = [
      { id: expect.any(String), email: owner.email, name: null, role: 'owner', createdAt: expect.any(String) },
      { id: member.id, email: member.email, name: 'Mia Member', role: 'member', createdAt: expect.any(String) },
    ];
    expect((await owner.agent.get('/api/organization/members')).body).toEqual({ data: expected });
    expect((await member.agent.get('/api/organization/members')).body).toEqual({ data: expected });
  });

  it('the owner removes a member: 204, and the member’s sessions end at once', async () => {
    const { owner, member } = await team();
    const second = await new Agent(h.app).post('/api/auth/login', { email: member.email, password });
    expect(second.status).toBe(200);
    expect((await owner.agent.delete(`/api/organization/members/${member.id}`)).status).toBe(204);
    expectError(await member.agent.get('/api/lists'), 401, 'unauthorized');
    const [{ n }] = await h.sql(`select count(*)::int as n from session where user_id = ?`, [member.id]);
    expect(n).toBe(0);
    expect((await owner.agent.get('/api/organization/members')).body.data).toHaveLength(1);
    expectError(await owner.agent.delete(`/api/organization/members/${member.id}`), 404, 'not_found');
  });

  it('an owner cannot remove themself; another organization’s user is not found', async () => {
    const { owner } = await team();
    const me = (await owner.agent.get('/api/auth/me')).body.user.id;
    const refused = expectError(await owner.agent.delete(`/api/organization/members/${me}`), 422, 'unprocessable');
    expect(refused.details.reason).toBe('owner_cannot_be_removed');
    const stranger = await team();
    expectError(await owner.agent.delete(`/api/organization/members/${stranger.member.id}`), 404, 'not_found');
    expect((await stranger.owner.agent.get('/api/organization/members')).body.data).toHaveLength(2);
    expectError(await owner.agent.delete('/api/organization/members/not-a-uuid'), 400, 'validation_error');
  });
});

describe('what members cannot manage (403 forbidden)', () => {
  it('API keys, provider settings (writes), webhooks, invites and members', async () => {
    const { owner, member } = await team();
    const key = await createKey(owner.agent, ['lists:read']);
    const hook = await owner.agent.post('/api/webhooks', { url: 'https://hooks.example.test/x', events: ['*'] });
    const refusals = [
      member.agent.get('/api/api-keys'),
      member.agent.post('/api/api-keys', { name: 'mine', scopes: ['lists:read'] }),
      member.agent.delete(`/api/api-keys/${key.id}`),
      member.agent.put('/api/settings/enrichment-providers', { providers: [{ provider: 'pdl', enabled: false }] }),
      member.agent.get('/api/webhooks'),
      member.agent.post('/api/webhooks', { url: 'https://hooks.example.test/y', events: ['*'] }),
      member.agent.delete(`/api/webhooks/${hook.body.id ?? randomUUID()}`),
      member.agent.post('/api/organization/invites', {}),
      member.agent.delete(`/api/organization/members/${member.id}`),
    ];
    for (const res of await Promise.all(refusals)) expectError(res, 403, 'forbidden');

    // Nothing changed, and what members may do still works.
    expect((await owner.agent.get('/api/api-keys')).body.data.map((k: any) => k.revokedAt)).toEqual([null]);
    expect((await member.agent.get('/api/settings/enrichment-providers')).status).toBe(200);
    expect((await member.agent.post('/api/lists', { name: 'Mine too' })).status).toBe(201);
    expect((await member.agent.get('/api/usage')).status).toBe(200);
    // A key the owner made still acts for the organization on the routes that take one.
    expect((await new Agent(h.app).get('/api/external/lists', { 'x-api-key': key.key })).status).toBe(200);
  });

  it('members’ answers document 403 on the owner routes', async () => {
    const doc = (await new Agent(h.app).get('/openapi.json')).body;
    for (const [path, method] of [
      ['/api/organization/invites', 'post'],
      ['/api/organization/members/{userId}', 'delete'],
      ['/api/api-keys', 'post'],
      ['/api/settings/enrichment-providers', 'put'],
    ] as const) {
      expect(Object.keys(doc.paths[path][method].responses)).toContain('403');
    }
  });
});
