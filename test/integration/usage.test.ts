/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies are asserted field by field */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/agent.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

const monthsAgo = (n: number) => {
  const now = new Date();
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - n, 1));
  return d.toISOString().slice(0, 7);
};

async function charge(organizationId: string, at: string, datum: string, credits: number) {
  await h.sql(
    `insert into credit_ledger (id, organization_id, delta, reason, ref_type, ref_id, idempotency_key, created_at) values (?, ?, ?, 'Bulk enrichment', 'enrichment_job', null, ?, ?)`,
    [randomUUID(), organizationId, -credits, `${randomUUID()}:lead:${datum}`, at],
  );
}

async function spend(organizationId: string, at: string, micros: number) {
  await h.sql(`insert into verification_spend (id, organization_id, job_id, email, provider, amount_micros, created_at) values (?, ?, null, ?, 'zerobounce', ?, ?)`, [
    randomUUID(),
    organizationId,
    `${randomUUID()}@acme.test`,
    micros,
    at,
  ]);
}

describe('GET /api/usage (CONTRACT §15)', () => {
  it('sums credits charged by datum, provider dollars and jobs created, month by month', async () => {
    const { agent, organizationId } = await h.signup({ credits: 100 });
    // Jobs through their routes (no worker runs: they stay where creation left them), then moved in time.
    const list = (await agent.post('/api/lists', { name: 'Usage' })).body;
    await agent.post(`/api/lists/${list.id}/leads`, { leads: [{ email: 'a@acme.test', networkUrl: 'https://www.linkedin.com/in/usage-a' }] });
    const verification = await agent.post('/api/verification/jobs', { listId: list.id, verificationMethod: 'smtp_only' });
    const enrichment = await agent.post('/api/enrichment/bulk', { listId: list.id });
    const form = new FormData();
    form.append('file', new Blob(['company\nAcme\n'], { type: 'text/csv' }), 'companies.csv');
    const scrape = await agent.post('/api/scrape/jobs', form);
    expect([verification.status, enrichment.status, scrape.status]).toEqual([201, 201, 201]);
    const twoAgo = `${monthsAgo(2)}-15T12:00:00Z`;
    await h.sql(`update verification_job set created_at = ? where id = ?`, [twoAgo, verification.body.id]);
    await h.sql(`update scrape_job set created_at = ? where id = ?`, [twoAgo, scrape.body.job.id]);

    // The last moments of a month and the first of the next fall on their own sides.
    const lastMonthEnd = new Date(Date.parse(`${monthsAgo(0)}-01T00:00:00Z`) - 1).toISOString();
    await charge(organizationId, lastMonthEnd, 'workEmail', 1);
    await charge(organizationId, lastMonthEnd, 'workEmail', 1);
    await charge(organizationId, lastMonthEnd, 'phone', 2);
    await charge(organizationId, `${monthsAgo(0)}-01T00:00:00Z`, 'personalEmail', 1);
    await spend(organizationId, twoAgo, 500);
    await spend(organizationId, twoAgo, 500);
    await spend(organizationId, twoAgo, 500);
    await spend(organizationId, lastMonthEnd, 1_250_000);

    const res = await agent.get('/api/usage');
    expect(res.status).toBe(200);
    const months = res.body.months as any[];
    expect(months.map((m) => m.month)).toEqual(Array.from({ length: 12 }, (_, i) => monthsAgo(11 - i)));
    const byMonth = new Map(months.map((m) => [m.month, m]));
    expect(byMonth.get(monthsAgo(2))).toEqual({
      month: monthsAgo(2),
      credits: { workEmail: 0, personalEmail: 0, phone: 0, total: 0 },
      verificationDollars: 0.0015,
      jobs: { verification: 1, scrape: 1, enrichment: 0 },
    });
    expect(byMonth.get(monthsAgo(1))).toEqual({
      month: monthsAgo(1),
      credits: { workEmail: 2, personalEmail: 0, phone: 2, total: 4 },
      verificationDollars: 1.25,
      jobs: { verification: 0, scrape: 0, enrichment: 0 },
    });
    expect(byMonth.get(monthsAgo(0))).toEqual({
      month: monthsAgo(0),
      credits: { workEmail: 0, personalEmail: 1, phone: 0, total: 1 },
      verificationDollars: 0,
      jobs: { verification: 0, scrape: 0, enrichment: 1 },
    });
    // Grants are not spend.
    expect(months.reduce((sum, m) => sum + m.credits.total, 0)).toBe(5);

    const window = await agent.get(`/api/usage?from=${monthsAgo(2)}&to=${monthsAgo(1)}`);
    expect(window.body.months.map((m: any) => m.month)).toEqual([monthsAgo(2), monthsAgo(1)]);

    // Another organization sees none of it.
    const { agent: other } = await h.signup();
    const theirs = (await other.get(`/api/usage?from=${monthsAgo(2)}&to=${monthsAgo(0)}`)).body.months as any[];
    expect(theirs.every((m) => m.credits.total === 0 && m.verificationDollars === 0 && m.jobs.verification === 0)).toBe(true);
  });

  it('refuses bad months with 400', async () => {
    const { agent } = await h.signup();
    for (const query of ['from=2026-13', 'to=2026-1', 'from=26-01', 'from=2026-05&to=2026-04', 'from=2000-01&to=2026-01', 'to=now']) {
      expectError(await agent.get(`/api/usage?${query}`), 400, 'validation_error');
    }
    expect((await agent.get('/api/usage?from=2025-12&to=2026-02')).body.months.map((m: any) => m.month)).toEqual(['2025-12', '2026-01', '2026-02']);
  });

  it('needs a session', async () => {
    expect((await h.app.request('/api/usage')).status).toBe(401);
  });
});
