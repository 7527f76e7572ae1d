import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, type AgentResponse, expectError } from '../support/agent.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

const csvForm = (csv: string) => {
  const form = new FormData();
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'outcomes.csv');
  return form;
};

const stored = (organizationId: string) =>
  h.sql(`select email, outcome, bounce_type, at from send_outcome where organization_id = ? order by email`, [organizationId]);

async function keyWith(agent: Agent, scopes: string[]): Promise<string> {
  const res = await agent.post('/api/api-keys', { name: 'Sender', scopes });
  expect(res.status).toBe(201);
  return res.body.key;
}

describe('POST /api/outcomes', () => {
  it('stores one outcome per address, trimmed and lower-cased; a later one replaces, an older one does not', async () => {
    const { agent, organizationId } = await h.signup();
    const first = await agent.post('/api/outcomes', {
      outcomes: [
        { email: '  Jane.Doe@Example.COM ', outcome: 'bounced', bounceType: 'hard', at: '2026-11-20T10:00:00Z' },
        { email: 'bob@example.com', outcome: 'delivered', at: '2026-11-20T10:00:00+02:00' },
        { email: 'soft@example.com', outcome: 'bounced', bounceType: 'soft' },
      ],
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ accepted: 3 });
    let rows = await stored(organizationId);
    expect(rows.map((r) => [r.email, r.outcome, r.bounce_type])).toEqual([
      ['bob@example.com', 'delivered', null],
      ['jane.doe@example.com', 'bounced', 'hard'],
      ['soft@example.com', 'bounced', 'soft'],
    ]);
    expect(new Date(rows[0].at).toISOString()).toBe('2026-11-20T08:00:00.000Z');
    // Without `at` the report's time is taken.
    expect(Math.abs(Date.now() - new Date(rows[2].at).getTime())).toBeLessThan(60_000);

    const second = await agent.post('/api/outcomes', {
      outcomes: [
        { email: 'jane.doe@example.com', outcome: 'delivered', at: '2026-11-21T10:00:00Z' },
        // Older than what is stored: accepted, but it replaces nothing.
        { email: 'BOB@example.com', outcome: 'bounced', bounceType: 'hard', at: '2026-11-19T10:00:00Z' },
        // Twice in one request: the later by `at` wins, whatever the order.
        { email: 'twice@example.com', outcome: 'delivered', at: '2026-11-22T10:00:00Z' },
        { email: 'twice@example.com', outcome: 'bounced', bounceType: 'hard', at: '2026-11-21T10:00:00Z' },
      ],
    });
    expect(second.body).toEqual({ accepted: 4 });
    rows = await stored(organizationId);
    expect(rows.map((r) => [r.email, r.outcome, r.bounce_type])).toEqual([
      ['bob@example.com', 'delivered', null],
      ['jane.doe@example.com', 'delivered', null],
      ['soft@example.com', 'bounced', 'soft'],
      ['twice@example.com', 'delivered', null],
    ]);

    // Another organization's reports are its own.
    const other = await h.signup();
    await other.agent.post('/api/outcomes', { outcomes: [{ email: 'bob@example.com', outcome: 'bounced', bounceType: 'hard' }] });
    expect((await stored(organizationId)).find((r) => r.email === 'bob@example.com')?.outcome).toBe('delivered');
    expect((await stored(other.organizationId)).map((r) => r.outcome)).toEqual(['bounced']);
  });

  it('refuses bad outcomes with a 400 naming each one, storing none of the request', async () => {
    const { agent, organizationId } = await h.signup();
    const future = new Date(Date.now() + 3_600_000).toISOString();
    const res = await agent.post('/api/outcomes', {
      outcomes: [
        { email: 'ok@example.com', outcome: 'delivered' },
        { email: 'not-an-address', outcome: 'delivered' },
        { email: 'a@example.com', outcome: 'delivered', bounceType: 'hard' },
        { email: 'b@example.com', outcome: 'bounced', at: future },
      ],
    });
    const error = expectError(res, 400, 'validation_error');
    expect(error.details.map((d: { path: string }) => d.path)).toEqual(['json.outcomes.1', 'json.outcomes.2', 'json.outcomes.3']);
    expect(error.details[0].message).toContain('not a valid email address');
    expect(error.details[1].message).toBe('a bounce type is only given for a bounced outcome');
    expect(error.details[2].message).toBe('the time is in the future');
    expect(await stored(organizationId)).toHaveLength(0);

    for (const body of [
      { outcomes: [] },
      { outcomes: [{ email: 'a@example.com', outcome: 'opened' }] },
      { outcomes: [{ email: 'a@example.com', outcome: 'bounced', bounceType: 'medium' }] },
      { outcomes: [{ email: 'a@example.com', outcome: 'delivered', at: 'yesterday' }] },
      { outcomes: [{ email: 'a@example.com', outcome: 'delivered', extra: 1 }] },
      { outcomes: Array.from({ length: 10_001 }, (_, i) => ({ email: `u${i}@example.com`, outcome: 'delivered' })) },
      {},
    ]) {
      expectError(await agent.post('/api/outcomes', body), 400, 'validation_error');
    }
    expect(await stored(organizationId)).toHaveLength(0);
  });

  it('takes 10,000 outcomes in one request', async () => {
    const { agent, organizationId } = await h.signup();
    const outcomes = Array.from({ length: 10_000 }, (_, i) => ({ email: `u${i}@example.com`, outcome: i % 2 ? 'delivered' : 'bounced' }));
    expect((await agent.post('/api/outcomes', { outcomes })).body).toEqual({ accepted: 10_000 });
    const [row] = await h.sql(`select count(*)::int as n from send_outcome where organization_id = ?`, [organizationId]);
    expect(row.n).toBe(10_000);
  });

  it('is open to a session or a key with verification:write, and honours Idempotency-Key', async () => {
    const { agent, organizationId } = await h.signup();
    const body = { outcomes: [{ email: 'key@example.com', outcome: 'delivered' }] };
    const anonymous = new Agent(h.app);
    expectError(await anonymous.post('/api/outcomes', body), 401, 'unauthorized');
    const reader = await keyWith(agent, ['verification:read']);
    expectError(await anonymous.post('/api/outcomes', body, { 'x-api-key': reader }), 403, 'forbidden');
    const writer = await keyWith(agent, ['verification:write']);
    const byKey = await anonymous.post('/api/outcomes', body, { 'x-api-key': writer, 'idempotency-key': 'outcomes-1' });
    expect(byKey.status).toBe(200);
    const replay = await anonymous.post('/api/outcomes', body, { 'x-api-key': writer, 'idempotency-key': 'outcomes-1' });
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(replay.body).toEqual({ accepted: 1 });
    expect((await stored(organizationId)).map((r) => r.email)).toEqual(['key@example.com']);
    const upload = await anonymous.post('/api/outcomes/import', csvForm('email,outcome\nkey2@example.com,delivered\n'), { 'x-api-key': writer });
    expect(upload.body).toEqual({ accepted: 1, rejected: [] });
  });
});

describe('POST /api/outcomes/import', () => {
  it('stores the usable rows and names each rejected data row with the reason in words', async () => {
    const { agent, organizationId } = await h.signup();
    const csv = [
      'Email,Outcome,Bounce_Type,At',
      'one@example.com,delivered,,2026-11-20T10:00:00Z',
      'TWO@example.com,bounced,hard,',
      'three@example.com,opened,,',
      '',
      'not-an-address,delivered,,',
      'four@example.com,,,',
      'five@example.com,delivered,hard,',
      'six@example.com,bounced,soft,next tuesday',
      'seven@example.com;bounced',
    ].join('\r\n');
    const res = await agent.post('/api/outcomes/import', csvForm(csv));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      accepted: 2,
      rejected: [
        { row: 3, reason: 'the outcome must be "delivered" or "bounced", not "opened"' },
        { row: 4, reason: '"not-an-address" is not a valid email address' },
        { row: 5, reason: 'the outcome is missing' },
        { row: 6, reason: 'a bounce type is only given for a bounced outcome' },
        { row: 7, reason: '"next tuesday" is not an ISO 8601 timestamp (e.g. 2026-11-20T12:00:00Z)' },
        { row: 8, reason: '"seven@example.com;bounced" is not a valid email address' },
      ],
    });
    expect((await stored(organizationId)).map((r) => [r.email, r.outcome, r.bounce_type])).toEqual([
      ['one@example.com', 'delivered', null],
      ['two@example.com', 'bounced', 'hard'],
    ]);
  });

  it('refuses a file it cannot read, storing nothing', async () => {
    const { agent, organizationId } = await h.signup();
    const refused = async (res: AgentResponse, status: number, code: string) => expectError(res, status, code);
    const noColumns = await refused(await agent.post('/api/outcomes/import', csvForm('address\na@example.com\n')), 422, 'unprocessable');
    expect(noColumns.message).toContain('email and outcome');
    await refused(await agent.post('/api/outcomes/import', csvForm('email,outcome\n')), 422, 'unprocessable');
    await refused(await agent.post('/api/outcomes/import', csvForm('email,outcome\na@example.com,delivered\n"b@example.com,bounced\n')), 422, 'unprocessable');
    await refused(await agent.post('/api/outcomes/import', new FormData()), 400, 'validation_error');
    await refused(await agent.post('/api/outcomes/import', { outcomes: [] }), 415, 'unsupported_media_type');
    // Over 10 MiB: refused as it streams in, even after valid rows.
    const big = `email,outcome\n${'a@example.com,delivered\n'.repeat(Math.ceil((10 * 1024 * 1024) / 24) + 10)}`;
    await refused(await agent.post('/api/outcomes/import', csvForm(big)), 413, 'payload_too_large');
    expect(await stored(organizationId)).toHaveLength(0);
  });

  it('reads the columns by their names in any order, with `;` and a BOM', async () => {
    const { agent, organizationId } = await h.signup();
    const csv = '\uFEFFOutcome; Bounce Type ;E-mail_Address\nbounced;soft;x@example.com\n';
    expect((await agent.post('/api/outcomes/import', csvForm(csv))).body).toEqual({ accepted: 1, rejected: [] });
    expect((await stored(organizationId)).map((r) => [r.email, r.outcome, r.bounce_type])).toEqual([['x@example.com', 'bounced', 'soft']]);
  });
});

describe('GET /api/verification/catch-all-calibration', () => {
  /** A job of the organization with results inserted as the assessment would leave them. */
  async function jobWith(agent: Agent, organizationId: string, results: Array<{ email: string; result: string; score: number | null; checkedAt: string }>) {
    const list = (await agent.post('/api/lists', { name: 'Calibration' })).body;
    const jobId = randomUUID();
    await h.sql(
      `insert into verification_job (id, organization_id, list_id, verification_method, verification_stage, total_emails, created_at, updated_at)
       values (?, ?, ?, 'smtp_only', 'completed', ?, now(), now())`,
      [jobId, organizationId, list.id, results.length],
    );
    for (const r of results) {
      await h.sql(
        `insert into verification_result (id, job_id, email, domain, smtp_result, result, source, catch_all_score, checked_at, smtp_checked_at)
         values (?, ?, ?, split_part(?, '@', 2), ?, ?, 'smtp', ?, ?, ?)`,
        [randomUUID(), jobId, r.email, r.email, r.result, r.result, r.score, r.checkedAt, r.checkedAt],
      );
    }
  }

  it('counts the latest scored Catch-All result per address against the outcomes reported after it, in 11 bands', async () => {
    const { agent, organizationId } = await h.signup();
    const day = (d: number) => `2026-11-${String(d).padStart(2, '0')}T12:00:00Z`;
    await jobWith(agent, organizationId, [
      { email: 'a@catch.test', result: 'Catch-All', score: 2, checkedAt: day(1) },
      { email: 'b@catch.test', result: 'Catch-All', score: 2, checkedAt: day(1) },
      { email: 'c@catch.test', result: 'Catch-All', score: 2, checkedAt: day(1) },
      { email: 'd@catch.test', result: 'Catch-All', score: 8, checkedAt: day(1) },
      { email: 'e@catch.test', result: 'Catch-All', score: 5, checkedAt: day(1) },
      { email: 'valid@catch.test', result: 'Valid', score: null, checkedAt: day(1) },
      { email: 'unscored@catch.test', result: 'Catch-All', score: null, checkedAt: day(1) },
    ]);
    // A later job scored e@ again: only that latest result counts.
    await jobWith(agent, organizationId, [{ email: 'e@catch.test', result: 'Catch-All', score: 9, checkedAt: day(10) }]);
    await agent.post('/api/outcomes', {
      outcomes: [
        { email: 'a@catch.test', outcome: 'bounced', bounceType: 'hard', at: day(2) },
        { email: 'b@catch.test', outcome: 'delivered', at: day(2) },
        { email: 'c@catch.test', outcome: 'bounced', bounceType: 'soft', at: day(2) },
        { email: 'd@catch.test', outcome: 'delivered', at: day(2) },
        // Before the result it would judge: not counted.
        { email: 'e@catch.test', outcome: 'bounced', bounceType: 'hard', at: day(5) },
        { email: 'valid@catch.test', outcome: 'bounced', bounceType: 'hard', at: day(2) },
      ],
    });
    // Another organization's results and outcomes never show.
    const other = await h.signup();
    await jobWith(other.agent, other.organizationId, [{ email: 'x@catch.test', result: 'Catch-All', score: 2, checkedAt: day(1) }]);
    await other.agent.post('/api/outcomes', { outcomes: [{ email: 'x@catch.test', outcome: 'bounced', bounceType: 'hard', at: day(2) }] });

    const res = await agent.get('/api/verification/catch-all-calibration');
    expect(res.status).toBe(200);
    const empty = (score: number) => ({ score, results: 0, withOutcome: 0, bounced: 0, bounceRate: null });
    expect(res.body.bands).toEqual([
      empty(0),
      empty(1),
      { score: 2, results: 3, withOutcome: 2, bounced: 1, bounceRate: 0.5 },
      empty(3),
      empty(4),
      empty(5),
      empty(6),
      empty(7),
      { score: 8, results: 1, withOutcome: 1, bounced: 0, bounceRate: 0 },
      { score: 9, results: 1, withOutcome: 0, bounced: 0, bounceRate: null },
      empty(10),
    ]);
    const fresh = await h.signup();
    expect((await fresh.agent.get('/api/verification/catch-all-calibration')).body.bands).toEqual(Array.from({ length: 11 }, (_, s) => empty(s)));
    expectError(await new Agent(h.app).get('/api/verification/catch-all-calibration'), 401, 'unauthorized');
  });
});
