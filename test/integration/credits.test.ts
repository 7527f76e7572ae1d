import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyCredits, InsufficientCreditsError } from '../../src/accounts/credits.ts';
import { Agent, expectError } from '../support/agent.ts';
import { startHarness, type Harness } from '../support/harness.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ env: { RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_BURST: '1000000' } });
});
afterAll(() => h?.stop());

const move = (organizationId: string, delta: number, key: string, reason = 'test') =>
  applyCredits(h.orm.em.fork(), { organizationId, delta, reason, refType: 'test', refId: key, idempotencyKey: `${organizationId}:${key}` });

describe('GET /api/credits', () => {
  it('answers the organization’s balance', async () => {
    const { agent, organizationId } = await h.signup({ credits: 7 });
    expect((await agent.get('/api/credits')).body).toEqual({ balance: 7 });
    await move(organizationId, -3, 'charge');
    const res = await agent.get('/api/credits');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ balance: 4 });
    expect((await (await h.signup()).agent.get('/api/credits')).body).toEqual({ balance: 0 });
  });

  it('requires a session', async () => {
    expectError(await new Agent(h.app).get('/api/credits'), 401, 'unauthorized');
    expectError(await new Agent(h.app).get('/api/credits/ledger'), 401, 'unauthorized');
  });
});

describe('GET /api/credits/ledger', () => {
  it('pages the organization’s entries newest first; they sum to the balance', async () => {
    const { agent, organizationId } = await h.signup({ credits: 10 });
    await move(organizationId, -2, 'a', 'Enrichment: phone');
    await move(organizationId, 5, 'b', 'grant');
    await move(organizationId, -1, 'c', 'Enrichment: work email');
    await expect(move(organizationId, -50, 'd')).rejects.toBeInstanceOf(InsufficientCreditsError);
    // Another organization's entries never show.
    const other = await h.signup({ credits: 3 });
    await move(other.organizationId, -1, 'x');

    const page1 = await agent.get('/api/credits/ledger?limit=3');
    expect(page1.status).toBe(200);
    expect(page1.body).toMatchObject({ total: 4, page: 1, limit: 3, totalPages: 2 });
    expect(page1.body.data.map((e: { delta: number; reason: string }) => [e.delta, e.reason])).toEqual([
      [-1, 'Enrichment: work email'],
      [5, 'grant'],
      [-2, 'Enrichment: phone'],
    ]);
    expect(page1.body.data[0]).toEqual({
      id: expect.any(String),
      delta: -1,
      reason: 'Enrichment: work email',
      refType: 'test',
      refId: 'c',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const page2 = await agent.get('/api/credits/ledger?limit=3&page=2');
    expect(page2.body.data.map((e: { delta: number }) => e.delta)).toEqual([10]);

    const all = (await agent.get('/api/credits/ledger?limit=100')).body.data as Array<{ delta: number }>;
    expect(all.reduce((sum, e) => sum + e.delta, 0)).toBe((await agent.get('/api/credits')).body.balance);
    expect((await agent.get('/api/credits')).body.balance).toBe(12);
  });

  it('rejects out-of-range paging with 400', async () => {
    const { agent } = await h.signup();
    for (const query of ['limit=0', 'limit=101', 'page=0', 'page=x']) {
      expectError(await agent.get(`/api/credits/ledger?${query}`), 400, 'validation_error');
    }
    expect((await agent.get('/api/credits/ledger')).body).toEqual({ data: [], total: 0, page: 1, limit: 20, totalPages: 0 });
  });
});
