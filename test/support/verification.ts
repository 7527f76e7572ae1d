/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies are asserted field by field */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Agent } from './agent.ts';
import { type Harness, startHarness } from './harness.ts';
import { type MailWorld, type MailWorldDescription, startMailWorld } from './mail-world/index.ts';
import { startZeroBounceServer, type ZeroBounceServer } from '../../src/sandbox/providers/zerobounce.ts';

/** Environment pointing a harness's worker at a mail world, with test-sized SMTP deadlines. */
export function mailWorldEnv(world: MailWorld): Record<string, string> {
  return {
    SMTP_PROBE_PORT: String(world.port),
    DNS_SERVERS: world.dnsServers.join(','),
    SMTP_PROBE_HELO: 'verifier.test',
    SMTP_PROBE_TIMEOUT_MS: '800',
    SMTP_GREYLIST_DELAY_MS: '200',
    // No later greylisting attempts unless a test asks for them (verification-greylist.test.ts).
    SMTP_GREYLIST_SCHEDULE: '',
  };
}

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

/** Polls the job until `done(job)` holds (deadline, not a fixed sleep: the machine is shared). */
export async function waitForJob(
  agent: Agent,
  jobId: string,
  done: (job: any) => boolean,
  timeoutMs = 90_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < deadline) {
    const res = await agent.get(`/api/verification/jobs/${jobId}`);
    if (res.status !== 200) throw new Error(`GET job failed: ${res.status} ${res.text}`);
    last = res.body;
    if (done(last)) return last;
    await sleep(100);
  }
  throw new Error(`job ${jobId} did not get there in ${timeoutMs} ms; last seen ${JSON.stringify(last)}`);
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
