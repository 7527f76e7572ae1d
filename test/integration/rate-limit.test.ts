import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, type AgentResponse, expectError } from '../support/agent.ts';
import { createKey } from '../support/auth-cases.ts';
import { type Harness, startHarness } from '../support/harness.ts';

// One token a minute: nothing refills while a test runs unless the test moves the bucket's clock.
const env = { RATE_LIMIT_PER_MINUTE: '1', RATE_LIMIT_BURST: '5' };
let first: Harness;
let second: Harness;
beforeAll(async () => {
  // Two API processes: each its own app and connection pool, one database between them.
  [first, second] = await Promise.all([startHarness({ env }), startHarness({ env })]);
});
afterAll(() => Promise.all([first.stop(), second.stop()]));

const budget = (res: AgentResponse) => ({
  status: res.status,
  limit: res.headers.get('ratelimit-limit'),
  remaining: res.headers.get('ratelimit-remaining'),
});
const keyClient = (h: Harness, key: string) => (path = '/api/external/lists') => new Agent(h.app).get(path, { 'x-api-key': key });
/** A key of a fresh organization (its session is rate-limited too: one session per key keeps budgets apart). */
async function newKey(scopes: Parameters<typeof createKey>[1]) {
  const { agent: session } = await first.signup();
  return { session, ...(await createKey(session, scopes)) };
}
/** Moves a bucket's last refill back in time, as if the caller had been quiet that long. */
const rewind = (bucket: string, seconds: number) =>
  first.sql(`update rate_limit_bucket set updated_at = updated_at - ? * interval '1 second' where bucket = ?`, [seconds, bucket]);

describe('rate limits per API key', () => {
  it('reports the budget in RateLimit-* headers and answers 429 with Retry-After when it is spent', async () => {
    const { key } = await newKey(['lists:read']);
    const call = keyClient(first, key);
    const seen = [];
    for (let i = 0; i < 5; i++) seen.push(budget(await call()));
    expect(seen).toEqual([4, 3, 2, 1, 0].map((remaining) => ({ status: 200, limit: '5', remaining: String(remaining) })));

    const refused = await call();
    const error = expectError(refused, 429, 'rate_limited');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(59);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(error.details.retryAfterSeconds).toBe(retryAfter);
    expect(budget(refused)).toEqual({ status: 429, limit: '5', remaining: '0' });
    expect(Number(refused.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(299);
  });

  it('shares one budget between two API processes', async () => {
    const { key } = await newKey(['lists:read']);
    const [viaFirst, viaSecond] = [keyClient(first, key), keyClient(second, key)];
    expect(budget(await viaFirst())).toMatchObject({ status: 200, remaining: '4' });
    expect(budget(await viaFirst())).toMatchObject({ status: 200, remaining: '3' });
    expect(budget(await viaSecond())).toMatchObject({ status: 200, remaining: '2' });
    expect(budget(await viaFirst())).toMatchObject({ status: 200, remaining: '1' });
    expect(budget(await viaSecond())).toMatchObject({ status: 200, remaining: '0' });
    expectError(await viaSecond(), 429, 'rate_limited');
    expectError(await viaFirst(), 429, 'rate_limited');
  });

  it('grants exactly the burst to concurrent requests spread over both processes', async () => {
    const { key } = await newKey(['lists:read']);
    const clients = [keyClient(first, key), keyClient(second, key)];
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => clients[i % 2]!()));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(5).fill(200), ...Array(7).fill(429)]);
  });

  it('refills with time, and a refused request spends nothing', async () => {
    const { id, key } = await newKey(['lists:read']);
    const call = keyClient(second, key);
    for (let i = 0; i < 5; i++) await call();
    for (let i = 0; i < 3; i++) expectError(await call(), 429, 'rate_limited');
    // One quiet minute is one token, however many refusals came before it.
    await rewind(`key:${id}`, 60);
    expect(budget(await call())).toMatchObject({ status: 200, remaining: '0' });
    expectError(await call(), 429, 'rate_limited');
    await rewind(`key:${id}`, 3 * 60);
    expect(budget(await call())).toMatchObject({ status: 200, remaining: '2' });
    // Never more than the burst, however long the quiet.
    await rewind(`key:${id}`, 24 * 3600);
    expect(budget(await call())).toMatchObject({ status: 200, remaining: '4' });
  });

  it('gives every key its own budget, apart from the session', async () => {
    const { session, key: spent } = await newKey(['lists:read']);
    const { key: fresh } = await createKey(session, ['lists:read']);
    for (let i = 0; i < 5; i++) await keyClient(first, spent)();
    expectError(await keyClient(first, spent)(), 429, 'rate_limited');
    expect(budget(await keyClient(first, fresh)())).toMatchObject({ status: 200, remaining: '4' });
    // The session made the two keys: two of its five tokens, untouched by the keys' traffic.
    expect(budget(await session.get('/api/api-keys'))).toMatchObject({ status: 200, remaining: '2' });
  });

  it('counts a request refused for its scope against the key', async () => {
    const { key } = await newKey(['leads:read']);
    for (let i = 0; i < 5; i++) expectError(await keyClient(first, key)(), 403, 'forbidden');
    expectError(await keyClient(first, key)(), 429, 'rate_limited');
  });
});

describe('rate limits per session', () => {
  it('limits each session on every session route, across both processes, with the same headers', async () => {
    const { agent } = await first.signup();
    const elsewhere = new Agent(second.app);
    for (const [name, value] of agent.cookies) elsewhere.cookies.set(name, value);

    // signup itself is public; the budget starts with the first authenticated request.
    expect(budget(await agent.get('/api/auth/me'))).toEqual({ status: 200, limit: '5', remaining: '4' });
    expect(budget(await elsewhere.post('/api/lists', { name: 'L' }))).toEqual({ status: 201, limit: '5', remaining: '3' });
    // Errors after authentication still carry the budget.
    const missing = await agent.get('/api/lists/00000000-0000-7000-8000-000000000000');
    expect(budget(missing)).toEqual({ status: 404, limit: '5', remaining: '2' });
    await elsewhere.get('/api/lists');
    await agent.get('/api/api-keys');
    const refused = await elsewhere.get('/api/lists');
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    // Another session of another user is not affected.
    const { agent: other } = await first.signup();
    expect(budget(await other.get('/api/auth/me'))).toMatchObject({ status: 200, remaining: '4' });
  });

  it('does not spend budget on requests refused before authentication', async () => {
    const anonymous = new Agent(first.app);
    for (let i = 0; i < 8; i++) expectError(await anonymous.get('/api/lists'), 401, 'unauthorized');
    const { agent } = await first.signup();
    expect(budget(await agent.get('/api/auth/me'))).toMatchObject({ status: 200, remaining: '4' });
  });
});
