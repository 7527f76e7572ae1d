/* eslint-disable @typescript-eslint/no-explicit-any -- job bodies are asserted field by field */
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createSearchProvider } from '../../src/providers/search/index.ts';
import type { ActivityDeps } from '../../activities/deps.ts';
import type { Agent } from './agent.ts';
import { eventually } from './eventually.ts';
import { type Harness, startHarness } from './harness.ts';
import { type ProviderServers, startProviderServers } from './providers/index.ts';
import { FAST_TUNING } from './providers/tuning.ts';

/** A multipart body; `fields` go after the file unless `fieldsFirst`. */
export function scrapeForm(
  csv: string | Uint8Array,
  options: { fileName?: string; fields?: Record<string, string>; fieldsFirst?: boolean } = {},
) {
  const form = new FormData();
  const fields = Object.entries(options.fields ?? {});
  if (options.fieldsFirst) for (const [k, v] of fields) form.append(k, v);
  form.append('file', new Blob([csv], { type: 'text/csv' }), options.fileName ?? 'companies.csv');
  if (!options.fieldsFirst) for (const [k, v] of fields) form.append(k, v);
  return form;
}

/** The app and a real worker whose search adapter talks to the stand-ins without rate-limit waits. */
export function startScrapeHarness(servers: ProviderServers, env: Record<string, string> = {}, fast = true): Promise<Harness> {
  return startHarness({
    worker: true,
    env: {
      ...servers.urls,
      ...servers.keys,
      // Tests poll job progress; the per-session API rate limit is not what they exercise.
      RATE_LIMIT_PER_MINUTE: '100000',
      RATE_LIMIT_BURST: '100000',
      ...env,
    },
    deps: fast ? (base: ActivityDeps) => ({ ...base, search: createSearchProvider(base.config, FAST_TUNING) }) : undefined,
  });
}

export interface ScrapeSuite {
  servers: ProviderServers;
  h: Harness;
  /** Signed in to the organization signed up for the file. */
  agent: Agent;
  organizationId: string;
}

/**
 * One test file's scrape setup: the provider stand-ins, a scrape harness (`env` added to its environment) and a
 * signed-up organization, started before the file's tests and stopped after them; with `resetAfterEach`, every
 * stand-in is back to normal after each test.
 */
export function scrapeSuite(env: Record<string, string> = {}, { resetAfterEach = false } = {}): ScrapeSuite {
  const suite = {} as ScrapeSuite;
  beforeAll(async () => {
    suite.servers = await startProviderServers();
    suite.h = await startScrapeHarness(suite.servers, env);
    ({ agent: suite.agent, organizationId: suite.organizationId } = await suite.h.signup());
  });
  if (resetAfterEach) afterEach(() => suite.servers.resetAll());
  afterAll(async () => {
    await suite.h?.stop();
    await suite.servers?.close();
  });
  return suite;
}

export async function jobOf(agent: Agent, jobId: string): Promise<any> {
  const res = await agent.get(`/api/scrape/jobs/${jobId}`);
  if (res.status !== 200) throw new Error(`job read failed: ${res.status} ${res.text}`);
  return res.body;
}

/**
 * A paused job at rest: its workflow runs no search batch and the search provider has no request in flight, so
 * every search started before the pause is answered and recorded, and nothing moves until resume. Waited for as
 * such; a count that stayed equal between two reads some hundred milliseconds apart was taken for it while a slow
 * search, or the batch's next item before it noticed the pause, was still to come on a loaded machine.
 */
export const waitForPausedAtRest = (h: Harness, serper: ProviderServers['serper'], jobId: string) =>
  eventually(
    async () => {
      const { raw } = await h.temporal.workflow.getHandle(`scrape-${jobId}`).describe();
      const batchRunning = (raw.pendingActivities ?? []).some((activity) => activity.activityType?.name === 'processScrapeBatch');
      return !batchRunning && serper.inFlight === 0;
    },
    (atRest) => atRest,
    { what: `paused scrape job ${jobId} at rest`, intervalMs: 100 },
  );

/** The one way to wait for a scrape job's status; returns the job as read then. */
export const waitForStatus = (agent: Agent, jobId: string, statuses: string[], timeoutMs = 120_000) =>
  eventually(
    async () => (await agent.get(`/api/scrape/jobs/${jobId}?itemsLimit=1`)).body,
    (job: any) => statuses.includes(job.status),
    { what: `scrape job ${jobId} ${statuses.join(' or ')}`, timeoutMs },
  );

/** Upload that must succeed; returns the created job. */
export async function upload(agent: Agent, form: FormData): Promise<any> {
  const res = await agent.post('/api/scrape/jobs', form);
  if (res.status !== 201) throw new Error(`upload failed: ${res.status} ${res.text}`);
  return res.body.job;
}

/** A letters-only name per row number (profile titles keep no digits in names). */
export function personOf(i: number) {
  let tag = '';
  for (let n = i; n > 0; n = Math.floor((n - 1) / 26)) tag = String.fromCharCode(97 + ((n - 1) % 26)) + tag;
  return { firstName: `Ann${tag}`, lastName: `Lee${tag}` };
}

/** `n` company rows; every `foundEvery`-th one has a profile on the Serper stand-in. */
export function companyRows(n: number, foundEvery: number, serper: ProviderServers['serper'], tag: string) {
  const lines = ['company,title'];
  const queries: string[] = [];
  const found = new Set<number>();
  for (let i = 1; i <= n; i++) {
    const company = `${tag} Co ${i}`;
    lines.push(`${company},VP Sales`);
    const q = `site:linkedin.com/in "${company}" "VP Sales"`;
    queries.push(q);
    if (i % foundEvery === 0) {
      found.add(i);
      serper.fixtures.results.set(q, [
        { title: `${tag} Blog ${i}`, link: `https://blog.example.test/${i}` },
        { title: `${personOf(i).firstName} ${personOf(i).lastName} - VP Sales - ${company} | LinkedIn`, link: `https://de.linkedin.com/in/${tag}-person-${i}/?trk=x` },
      ]);
    }
  }
  return { csv: lines.join('\n') + '\n', queries, found };
}

/** How many times each query reached the stand-in. */
export function queryCounts(requests: ReadonlyArray<{ body: unknown; query: Record<string, string> }>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const request of requests) {
    const q = (request.body as { q?: string } | undefined)?.q ?? request.query.q;
    if (q) counts.set(q, (counts.get(q) ?? 0) + 1);
  }
  return counts;
}
