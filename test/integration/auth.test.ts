import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, expectError } from '../support/agent.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { SIGNUP_CREDITS: '25' } });
});
afterAll(() => h.stop());

const password = 'correct horse battery';
const newEmail = () => `u-${randomUUID()}@example.test`;

describe('POST /api/auth/signup', () => {
  it('creates user and organization, grants signup credits through the ledger, and signs in', async () => {
    const agent = new Agent(h.app);
    const email = newEmail();
    const res = await agent.post('/api/auth/signup', { email: email.toUpperCase(), password, name: 'Jane', organizationName: 'Acme' });
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({ email, name: 'Jane' });
    expect(res.body.organization).toMatchObject({ name: 'Acme', creditBalance: 25 });
    const cookie = res.headers.getSetCookie()[0]!;
    expect(cookie).toMatch(/^sid=[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    const rows = await h.sql(
      `select delta, idempotency_key from credit_ledger where organization_id = ?`,
      [res.body.organization.id],
    );
    expect(rows).toEqual([{ delta: 25, idempotency_key: `signup:${res.body.organization.id}` }]);
    const me = await agent.get('/api/auth/me');
    expect(me.status).toBe(200);
    expect(me.body.user.email).toBe(email);
  });

  it('refuses a second account with the same email (409) and short passwords (400)', async () => {
    const agent = new Agent(h.app);
    const email = newEmail();
    expect((await agent.post('/api/auth/signup', { email, password, organizationName: 'A' })).status).toBe(201);
    expectError(await new Agent(h.app).post('/api/auth/signup', { email, password, organizationName: 'B' }), 409, 'conflict');
    const short = expectError(await new Agent(h.app).post('/api/auth/signup', { email: newEmail(), password: 'short', organizationName: 'B' }), 400, 'validation_error');
    expect(short.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'json.password' })]));
  });

  it('stores only a memory-hard hash of the password and a hash of the session token', async () => {
    const { agent, email } = await h.signup();
    const [user] = await h.sql(`select password_hash from app_user where email = ?`, [email]);
    expect(user.password_hash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(user.password_hash).not.toContain(password);
    const token = agent.cookies.get('sid')!;
    const sessions = await h.sql(`select token_hash from session where token_hash = ?`, [token]);
    expect(sessions).toHaveLength(0);
  });
});

describe('per-address limits on signup and login', () => {
  it('refuses signups from one address past SIGNUP_PER_HOUR with 429, so SIGNUP_CREDITS cannot be farmed', async () => {
    const limited = await startHarness({ env: { SIGNUP_PER_HOUR: '3', LOGIN_PER_MINUTE: '4' } });
    try {
      const client = new Agent(limited.app);
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await client.post('/api/auth/signup', { email: newEmail(), password, organizationName: 'Farm' })).status);
      expect(statuses).toEqual([201, 201, 201, 429, 429, 429]);
      const refused = await client.post('/api/auth/signup', { email: newEmail(), password, organizationName: 'Farm' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // Another address is not affected.
      expect((await new Agent(limited.app).post('/api/auth/signup', { email: newEmail(), password, organizationName: 'Other' })).status).toBe(201);

      const logins = [];
      for (let i = 0; i < 6; i++) logins.push((await client.post('/api/auth/login', { email: newEmail(), password })).status);
      expect(logins).toEqual([401, 401, 401, 401, 429, 429]);
    } finally {
      await limited.stop();
    }
  });
});

describe('POST /api/auth/login and /logout', () => {
  it('logs in, and after logout the same session cookie is dead', async () => {
    const { email } = await h.signup();
    const agent = new Agent(h.app);
    const login = await agent.post('/api/auth/login', { email, password });
    expect(login.status).toBe(200);
    expect(login.body.user.email).toBe(email);
    const token = agent.cookies.get('sid')!;
    expect((await agent.get('/api/auth/me')).status).toBe(200);
    expect((await agent.post('/api/auth/logout')).status).toBe(204);
    const replay = await h.app.request('/api/auth/me', { headers: { cookie: `sid=${token}` } });
    expect(replay.status).toBe(401);
  });

  it('answers wrong password and unknown email with the same 401', async () => {
    const { email } = await h.signup();
    const wrong = await new Agent(h.app).post('/api/auth/login', { email, password: 'not the password' });
    const unknown = await new Agent(h.app).post('/api/auth/login', { email: newEmail(), password });
    expectError(wrong, 401, 'unauthorized');
    expectError(unknown, 401, 'unauthorized');
    expect(wrong.body).toEqual(unknown.body);
  });

  it('throttles after 10 failures for one email from one address with 429 and Retry-After, even with the right password', async () => {
    const { email } = await h.signup();
    const attacker = new Agent(h.app);
    for (let i = 0; i < 10; i++) {
      expectError(await attacker.post('/api/auth/login', { email, password: `wrong-${i}-password` }), 401, 'unauthorized');
    }
    const res = await attacker.post('/api/auth/login', { email, password });
    expectError(res, 429, 'rate_limited');
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(800);
    expect(retryAfter).toBeLessThanOrEqual(900);
    // The owner, elsewhere, is not locked out by a stranger's failures.
    expect((await new Agent(h.app).post('/api/auth/login', { email, password })).status).toBe(200);
  });

  it('throttles one address after 10 failures over any emails', async () => {
    const { email } = await h.signup();
    const guesser = new Agent(h.app);
    for (let i = 0; i < 10; i++) {
      expectError(await guesser.post('/api/auth/login', { email: newEmail(), password }), 401, 'unauthorized');
    }
    expectError(await guesser.post('/api/auth/login', { email, password }), 429, 'rate_limited');
  });

  it('throttles one email after 100 failures spread over many addresses', async () => {
    const { email } = await h.signup();
    await h.sql(
      `insert into login_failure (id, email, client_ip, created_at)
       select gen_random_uuid(), ?, '10.9.' || (i / 250) || '.' || (i % 250), now() - interval '1 minute' from generate_series(1, 100) i`,
      [email],
    );
    expectError(await new Agent(h.app).post('/api/auth/login', { email, password }), 429, 'rate_limited');
  });

  it('rejects an expired session', async () => {
    const { agent, email } = await h.signup();
    await h.sql(
      `update session set expires_at = now() - interval '1 second' where user_id = (select id from app_user where email = ?)`,
      [email],
    );
    expectError(await agent.get('/api/auth/me'), 401, 'unauthorized');
  });
});

describe('CSRF and CORS', () => {
  it('refuses a cookie-authenticated POST without Origin, or from a foreign origin, with 403', async () => {
    const { agent } = await h.signup();
    agent.origin = null;
    const missing = expectError(await agent.post('/api/lists', { name: 'x' }), 403, 'forbidden');
    expect(missing.details).toEqual({ reason: 'origin_missing' });
    expectError(await agent.post('/api/lists', { name: 'x' }, { origin: 'https://evil.test' }), 403, 'forbidden');
    expect((await agent.post('/api/lists', { name: 'x' }, { origin: 'http://app.test' })).status).toBe(201);
    expect((await agent.post('/api/lists', { name: 'x' }, { referer: 'http://localhost/dashboard' })).status).toBe(201);
  });

  it('answers a preflight from an allowed origin with credentials, and none for another origin', async () => {
    const allowed = await h.app.request('/api/lists', {
      method: 'OPTIONS',
      headers: { origin: 'http://app.test', 'access-control-request-method': 'POST' },
    });
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://app.test');
    expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');

    const other = await h.app.request('/api/lists', {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.test', 'access-control-request-method': 'POST' },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();

    const { agent } = await h.signup();
    const credentialed = await agent.get('/api/lists', { origin: 'http://app.test' });
    expect(credentialed.status).toBe(200);
    expect(credentialed.headers.get('access-control-allow-origin')).toBe('http://app.test');
    expect(credentialed.headers.get('access-control-allow-credentials')).toBe('true');
  });
});
