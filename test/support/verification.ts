/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies are asserted field by field */
import type { Agent } from './agent.ts';
import { eventually } from './eventually.ts';
import { type Harness, startHarness } from './harness.ts';
import { type MailWorld, type MailWorldDescription, mailWorldEnv, startMailWorld } from './mail-world/index.ts';
import { startZeroBounceServer, type ZeroBounceServer } from '../../src/sandbox/providers/zerobounce.ts';

/** Environment pointing a harness's worker at a stand-in ZeroBounce (single and bulk endpoints). */
export function zeroBounceEnv(zb: ZeroBounceServer): Record<string, string> {
  return { ZEROBOUNCE_API_KEY: zb.apiKey, ZEROBOUNCE_BASE_URL: zb.url, ZEROBOUNCE_BULK_BASE_URL: zb.url };
}

export interface VerificationWorld {
  world: MailWorld;
  zb: ZeroBounceServer;
  h: Harness;
  stop: () => Promise<void>;
}

/**
 * A mail world, a stand-in ZeroBounce and a harness whose worker uses both; `env` adds to (or overrides)
 * mailWorldEnv's test-sized settings.
 */
export async function startVerificationWorld(
  description: MailWorldDescription,
  env: Record<string, string> = {},
): Promise<VerificationWorld> {
  const world = await startMailWorld(description);
  const zb = await startZeroBounceServer().catch(async (error: unknown) => {
    await world.stop();
    throw error;
  });
  const h = await startHarness({
    worker: true,
    env: { ...mailWorldEnv(world), ...zeroBounceEnv(zb), ...env },
  }).catch(async (error: unknown) => {
    await zb.close();
    await world.stop();
    throw error;
  });
  const stop = async () => {
    await h.stop();
    await zb.close();
    await world.stop();
  };
  return { world, zb, h, stop };
}

/** A list holding one lead per given address (in chunks of the bulk route's 1000). */
export async function listWithEmails(
  agent: Agent,
  emails: ReadonlyArray<string | null>,
  name = 'Prospects',
): Promise<string> {
  const list = await agent.post('/api/lists', { name });
  if (list.status !== 201) throw new Error(`list creation failed: ${list.status} ${list.text}`);
  for (let i = 0; i < emails.length; i += 1000) {
    const leads = emails.slice(i, i + 1000).map((email, k) => ({ email, firstName: `Lead ${i + k}` }));
    const res = await agent.post(`/api/lists/${list.body.id}/leads`, { leads });
    if (res.status !== 201) throw new Error(`lead creation failed: ${res.status} ${res.text}`);
  }
  return list.body.id as string;
}

export async function startJob(agent: Agent, listId: string, verificationMethod: string): Promise<any> {
  const res = await agent.post('/api/verification/jobs', { listId, verificationMethod });
  if (res.status !== 201) throw new Error(`job creation failed: ${res.status} ${res.text}`);
  return res.body;
}

/** The one way to wait for a verification job: reads it until `done(job)` holds and returns it. */
export function waitForJob(agent: Agent, jobId: string, done: (job: any) => boolean, timeoutMs = 90_000): Promise<any> {
  return eventually(
    async () => {
      const res = await agent.get(`/api/verification/jobs/${jobId}`);
      if (res.status !== 200) throw new Error(`GET job failed: ${res.status} ${res.text}`);
      return res.body;
    },
    done,
    { what: `verification job ${jobId}`, timeoutMs, intervalMs: 100 },
  );
}

export const inStage =
  (...stages: string[]) =>
  (job: any) =>
    stages.includes(job.verificationStage);

/** Every result row of a job, through the paginated route. */
export async function allResults(agent: Agent, jobId: string, query = ''): Promise<any[]> {
  const rows: any[] = [];
  for (let page = 1; ; page += 1) {
    const res = await agent.get(`/api/verification/jobs/${jobId}/results?page=${page}&limit=100${query}`);
    if (res.status !== 200) throw new Error(`GET results failed: ${res.status} ${res.text}`);
    rows.push(...res.body.data);
    if (page >= res.body.totalPages) return rows;
  }
}

/** The provider spend stored for a job: one row per address bought. */
export async function spendRows(
  h: Harness,
  jobId: string,
): Promise<Array<{ email: string; amount_micros: number; organization_id: string }>> {
  return h.sql(
    `select email, amount_micros, organization_id from verification_spend where job_id = ? order by email`,
    [jobId],
  );
}
