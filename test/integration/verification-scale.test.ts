/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies are asserted field by field */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.ts';
import {
  type MailWorld,
  mailWorldEnv,
  STANDARD_DOMAINS,
  STANDARD_EXPECTATIONS,
  standardAddressList,
  standardWorld,
  startMailWorld,
} from '../support/mail-world/index.ts';
import {
  allResults,
  inStage,
  listWithEmails,
  startJob,
  waitForJob,
} from '../support/verification.ts';

let world: MailWorld;
let h: Harness;

beforeAll(async () => {
  world = await startMailWorld(standardWorld());
  h = await startHarness({ worker: true, env: mailWorldEnv(world) });
});
afterAll(async () => {
  await h?.stop();
  await world?.stop();
});

const percent = (part: number, whole: number) => Math.round((part / whole) * 10_000) / 100;

describe('a 1,000-address list over every kind of domain', () => {
  it(
    'ends with the right result for every address, and counts, domain stats, estimate and coverage agree',
    { timeout: 240_000 },
    async () => {
      const { agent } = await h.signup();
      const list = standardAddressList(1000);
      const listId = await listWithEmails(
        agent,
        list.map((a) => a.email),
      );
      const created = await startJob(agent, listId, 'smtp_api_fallback');
      const job = await waitForJob(agent, created.id, inStage('awaiting_decision'), 180_000);

      const rows = await allResults(agent, job.id);
      expect(rows).toHaveLength(1000);
      const byEmail = new Map(rows.map((r) => [r.email, r]));
      const wrong = list
        .filter((a) => byEmail.get(a.email)?.result !== a.expected)
        .map((a) => `${a.email}: ${byEmail.get(a.email)?.result} ${byEmail.get(a.email)?.reason}`);
      expect(wrong).toEqual([]);

      const expected = (result: string) => list.filter((a) => a.expected === result).length;
      expect(job).toMatchObject({
        totalEmails: 1000,
        processedEmails: 1000,
        smtpValidCount: expected('Valid'),
        smtpInvalidCount: expected('Invalid'),
        smtpCatchAllCount: expected('Catch-All'),
        smtpUnknownCount: expected('Unknown'),
        coveragePercentage: percent(expected('Valid') + expected('Invalid'), 1000),
      });

      const progress = (await agent.get(`/api/verification/jobs/${job.id}/progress`)).body;
      expect(progress.job).toEqual({
        id: job.id,
        verificationStage: 'awaiting_decision',
        processedEmails: 1000,
        totalEmails: 1000,
        coveragePercentage: job.coveragePercentage,
      });
      expect(progress.domainStats.map((d: any) => d.domain).sort()).toEqual([...STANDARD_DOMAINS].sort());
      for (const stat of progress.domainStats) {
        const mine = list.filter((a) => a.domain === stat.domain);
        expect(stat).toEqual({
          domain: stat.domain,
          totalEmails: mine.length,
          validCount: mine.filter((a) => a.expected === 'Valid').length,
          invalidCount: mine.filter((a) => a.expected === 'Invalid').length,
          catchAllCount: mine.filter((a) => a.expected === 'Catch-All').length,
          unknownCount: mine.filter((a) => a.expected === 'Unknown').length,
          isCatchAll: STANDARD_EXPECTATIONS[stat.domain as keyof typeof STANDARD_EXPECTATIONS].isCatchAll,
        });
      }
      const sum = (key: string) => progress.domainStats.reduce((n: number, d: any) => n + d[key], 0);

      const estimate = (await agent.get(`/api/verification/jobs/${job.id}/estimate`)).body;
      expect(estimate).toEqual({
        jobId: job.id,
        unknownCount: job.smtpUnknownCount,
        catchAllCount: job.smtpCatchAllCount,
        totalGapCount: sum('unknownCount') + sum('catchAllCount'),
        costPerEmail: 0.0005,
        fillUnknownsCost: (sum('unknownCount') * 500) / 1_000_000,
        fillCatchAllCost: (sum('catchAllCount') * 500) / 1_000_000,
        fillAllGapsCost: ((job.smtpUnknownCount + job.smtpCatchAllCount) * 500) / 1_000_000,
        currentCoveragePercentage: job.coveragePercentage,
        projectedCoveragePercentage: 100,
        catchAllByScore: expect.any(Array),
      });
      // Every Catch-All is scored by the time the job waits: the bands add up to the count.
      expect(estimate.catchAllByScore.map((b: any) => b.score)).toEqual(Array.from({ length: 11 }, (_, score) => score));
      expect(estimate.catchAllByScore.reduce((n: number, b: any) => n + b.count, 0)).toBe(job.smtpCatchAllCount);

      const decision = await agent.post(`/api/verification/jobs/${job.id}/decision`, {
        decision: 'accept_current',
      });
      expect(decision.body).toMatchObject({ verificationStage: 'completed', userDecision: 'accept_current' });
      const done = (await agent.get(`/api/verification/jobs/${job.id}`)).body;
      expect(done).toMatchObject({
        verificationStage: 'completed',
        coveragePercentage: job.coveragePercentage,
        apiCost: 0,
      });
      const leads = await h.sql(`select email, email_status from lead where list_id = ?`, [listId]);
      expect(leads.filter((l) => l.email_status !== byEmail.get(l.email)?.result)).toEqual([]);
      expect(world.totals().dataCommands).toBe(0);
    },
  );
});
