/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies are asserted field by field */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../support/harness.ts';
import { allResults, inStage, startJob, startVerificationWorld, waitForJob } from '../support/verification.ts';

// Domains of this file only: the learned template counts are shared by every organization (and test file).
const CATCH_ALL = 'scored-catchall.test';
const TEMPLATED = 'scored-templated.test';

const WORLD = {
  domains: {
    [CATCH_ALL]: { mx: [{ host: `mx.${CATCH_ALL}`, preference: 10, ip: '127.0.0.61', behaviour: { catchAll: true } }] },
    [TEMPLATED]: {
      mx: [
        {
          host: `mx.${TEMPLATED}`,
          preference: 10,
          ip: '127.0.0.62',
          behaviour: { mailboxes: ['ada.lovelace', 'alan.turing', 'grace.hopper', 'jlicklider'].map((l) => `${l}@${TEMPLATED}`) },
        },
      ],
    },
  },
};

let h: Harness;
let stop: (() => Promise<void>) | undefined;
beforeAll(async () => {
  ({ h, stop } = await startVerificationWorld(WORLD));
});
afterAll(() => stop?.());

async function listOf(agent: any, leads: object[]): Promise<string> {
  const list = await agent.post('/api/lists', { name: 'People' });
  const added = await agent.post(`/api/lists/${list.body.id}/leads`, { leads });
  expect(added.status).toBe(201);
  return list.body.id;
}

async function runJob(agent: any, listId: string) {
  const job = await startJob(agent, listId, 'smtp_only');
  await waitForJob(agent, job.id, inStage('completed'));
  const rows = await allResults(agent, job.id);
  return { jobId: job.id as string, byEmail: new Map(rows.map((r: any) => [r.email, r])) };
}

describe('the score of a Catch-All result (CONTRACT §12)', () => {
  it('is on every Catch-All result, with the reasons the service had', async () => {
    const { agent, organizationId } = await h.signup();
    await h.sql(
      `insert into domain_template_share (domain, template, valid_count, updated_at) values (?, 'first.last', 9, now())
       on conflict (domain, template) do update set valid_count = 9`,
      [CATCH_ALL],
    );
    await h.sql(
      `insert into send_outcome (id, organization_id, email, outcome, bounce_type, at, created_at) values
       (gen_random_uuid(), ?, ?, 'bounced', 'hard', now(), now()), (gen_random_uuid(), ?, ?, 'delivered', null, now(), now())`,
      [organizationId, `gone.away@${CATCH_ALL}`, organizationId, `xqzvwkrt@${CATCH_ALL}`],
    );
    const listId = await listOf(agent, [
      { email: `jane.doe@${CATCH_ALL}`, firstName: 'Jane', lastName: 'Doe' },
      { email: `jdoe@${CATCH_ALL}`, firstName: 'John', lastName: 'Doe' },
      { email: `sales@${CATCH_ALL}` },
      { email: `zzkqwtrvbn@${CATCH_ALL}` },
      { email: `gone.away@${CATCH_ALL}`, firstName: 'Gone', lastName: 'Away' },
      { email: `xqzvwkrt@${CATCH_ALL}` },
      { firstName: 'Found', lastName: 'Person', email: `found.person@${CATCH_ALL}`, workEmail: `found.person@${CATCH_ALL}` },
      { email: `ada.lovelace@${TEMPLATED}`, firstName: 'Ada', lastName: 'Lovelace' },
    ]);
    const { byEmail } = await runJob(agent, listId);
    const score = (local: string) => {
      const r = byEmail.get(`${local}@${CATCH_ALL}`);
      return { result: r.result, score: r.catchAllScore, reasons: r.catchAllReasons };
    };
    expect(score('jane.doe')).toEqual({ result: 'Catch-All', score: 8, reasons: ['domain_catch_all', 'pattern_match'] });
    expect(score('jdoe')).toEqual({ result: 'Catch-All', score: 3, reasons: ['domain_catch_all', 'pattern_mismatch'] });
    expect(score('sales')).toEqual({ result: 'Catch-All', score: 6, reasons: ['domain_catch_all', 'role_account'] });
    expect(score('zzkqwtrvbn')).toEqual({ result: 'Catch-All', score: 0, reasons: ['domain_catch_all', 'pattern_mismatch', 'random_looking'] });
    expect(score('gone.away')).toEqual({ result: 'Catch-All', score: 0, reasons: ['domain_catch_all', 'prior_bounced'] });
    expect(score('xqzvwkrt').score).toBe(8);
    expect(score('xqzvwkrt').reasons).toContain('prior_delivered');
    expect(score('found.person')).toEqual({ result: 'Catch-All', score: 10, reasons: ['domain_catch_all', 'pattern_match', 'found_by_provider'] });
    // Every other result carries none.
    expect(byEmail.get(`ada.lovelace@${TEMPLATED}`)).toMatchObject({ result: 'Valid', catchAllScore: null, catchAllReasons: [] });
    for (const r of byEmail.values()) if (r.result === 'Catch-All') expect(r.catchAllScore).toEqual(expect.any(Number));
  });

  it('filters results and the download by score', async () => {
    const { agent } = await h.signup();
    const listId = await listOf(agent, [
      { email: `sales@${CATCH_ALL}` },
      { email: `zzkqwtrvbn@${CATCH_ALL}` },
      { email: `alan.turing@${TEMPLATED}` },
    ]);
    const { jobId } = await runJob(agent, listId);
    const low = await agent.get(`/api/verification/jobs/${jobId}/results?maxScore=4`);
    expect(low.body.data.map((r: any) => r.email)).toEqual([`zzkqwtrvbn@${CATCH_ALL}`]);
    expect(low.body.total).toBe(1);
    const high = await agent.get(`/api/verification/jobs/${jobId}/results?minScore=5&maxScore=10`);
    expect(high.body.data.map((r: any) => r.email)).toEqual([`sales@${CATCH_ALL}`]);
    const bad = await agent.get(`/api/verification/jobs/${jobId}/results?minScore=6&maxScore=2`);
    expect(bad.status).toBe(400);
    const csv = await agent.get(`/api/verification/jobs/${jobId}/results/download?maxScore=4`);
    const lines = csv.text.trim().split(/\r?\n/);
    expect(lines[0]!.endsWith(',catch_all_score')).toBe(true);
    expect(lines.slice(1)).toHaveLength(1);
    expect(lines[1]).toMatch(new RegExp(`^zzkqwtrvbn@${CATCH_ALL},Catch-All,.*,${low.body.data[0].catchAllScore}$`));
  });

  it("learns a domain's template from Valid results once per job, counts only", async () => {
    const { agent } = await h.signup();
    const before = await templateCounts();
    const listId = await listOf(agent, [
      { email: `ada.lovelace@${TEMPLATED}`, firstName: 'Ada', lastName: 'Lovelace' },
      { email: `grace.hopper@${TEMPLATED}`, firstName: 'Grace', lastName: 'Hopper' },
      { email: `jlicklider@${TEMPLATED}`, firstName: 'Joseph', lastName: 'Licklider' },
      { email: `alan.turing@${TEMPLATED}` },
      { email: `nobody@${TEMPLATED}`, firstName: 'No', lastName: 'Body' },
    ]);
    const { jobId } = await runJob(agent, listId);
    const learned = await eventuallyLearned(jobId);
    expect(learned).toBe(true);
    const after = await templateCounts();
    expect((after.get('first.last') ?? 0) - (before.get('first.last') ?? 0)).toBe(2);
    expect((after.get('flast') ?? 0) - (before.get('flast') ?? 0)).toBe(1);
    const columns = await h.sql(`select column_name from information_schema.columns where table_name = 'domain_template_share'`);
    expect(columns.map((c) => c.column_name).sort()).toEqual(['domain', 'template', 'updated_at', 'valid_count']);
  });
});

async function templateCounts(): Promise<Map<string, number>> {
  const rows = await h.sql(`select template, valid_count from domain_template_share where domain = ?`, [TEMPLATED]);
  return new Map(rows.map((r) => [r.template as string, Number(r.valid_count)]));
}

async function eventuallyLearned(jobId: string): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    const [row] = await h.sql(`select templates_learned_at from verification_job where id = ?`, [jobId]);
    if (row?.templates_learned_at) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}
