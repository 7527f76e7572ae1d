import { describe, expect, it } from 'vitest';
import { expectError } from '../support/agent.ts';
import { createSearchProvider } from '../../src/providers/search/index.ts';
import { ProviderRequestError } from '../../src/providers/errors.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { eventually } from '../support/eventually.ts';
import { seededRandom } from '../support/fuzz.ts';
import { expectEndedOnJobGone } from '../support/job-gone.ts';
import { FAST_TUNING } from '../support/providers/tuning.ts';
import { companyRows, jobOf, queryCounts, scrapeForm, startScrapeHarness, upload, waitForPausedAtRest, waitForStatus, scrapeSuite } from '../support/scrape.ts';
import { throughout } from '../support/throughout.ts';

const suite = scrapeSuite({}, { resetAfterEach: true });

const counters = async (jobId: string) =>
  (await suite.h.sql('select status, completed_items as "completed", found_items as "found" from scrape_job where id = ?', [jobId]))[0] as {
    status: string;
    completed: number;
    found: number;
  };

/** How many searches of `queries` reached the stand-in so far. */
const searchesOf = (queries: Set<string>) => suite.servers.serper.requests.filter((r) => queries.has((r.body as { q: string }).q)).length;

/** Every item settled once, counters equal to the items, each query searched exactly `times`. */
async function expectExactlyOnce(jobId: string, rows: ReturnType<typeof companyRows>) {
  const job = await jobOf(suite.agent, jobId);
  expect(job).toMatchObject({ status: 'completed', totalItems: rows.queries.length, completedItems: rows.queries.length, foundItems: rows.found.size });
  const found = job.items.filter((i: { status: string }) => i.status === 'found').map((i: { rowNumber: number }) => i.rowNumber);
  expect(new Set(found)).toEqual(rows.found);
  expect(job.items.every((i: { status: string }) => i.status === 'found' || i.status === 'not_found')).toBe(true);
  const counts = queryCounts(suite.servers.serper.requests);
  const wrong = rows.queries.filter((q) => counts.get(q) !== 1);
  expect(wrong).toEqual([]);
}

describe('scrape workflow: pause and resume', () => {
  it('pauses within seconds at random moments, never moves while paused, and searches every item exactly once', async () => {
    suite.servers.serper.setMode({ kind: 'delay', ms: 15 });
    const rows = companyRows(400, 3, suite.servers.serper, 'pr');
    const queries = new Set(rows.queries);
    const job = await upload(suite.agent, scrapeForm(rows.csv));

    // Random moments, the same on every run: each pause comes after a seeded number of newly settled items.
    const random = seededRandom(49);
    let pauses = 0;
    let settledBefore = 0;
    for (let cycle = 0; cycle < 30; cycle++) {
      const target = settledBefore + 1 + random.int(25);
      await eventually(
        () => counters(job.id),
        (c) => c.completed >= target || c.status === 'completed',
        { what: `scrape job ${job.id} past ${target} items` },
      );
      const paused = await suite.agent.post(`/api/scrape/jobs/${job.id}/pause`);
      if (paused.status === 409) {
        expect(paused.body.error.details.currentState).toBe('completed');
        break;
      }
      expect(paused.status).toBe(200);
      expect(paused.body).toMatchObject({ id: job.id, status: 'paused' });
      expect(paused.body.items).toBeUndefined();
      pauses++;

      // The searches already under way finish; then nothing moves until resume.
      await waitForPausedAtRest(suite.h, suite.servers.serper, job.id);
      const settled = { ...(await counters(job.id)), searches: searchesOf(queries) };
      expect(settled.completed).toBe(settled.searches);
      // At rest no batch runs and no search is in flight; a workflow that ignored the pause would start the next
      // batch within one workflow task, and its first search would be answered after 15 ms: half a second is many
      // times both, even on this shared machine.
      const still = await throughout(
        async () => ({ ...(await counters(job.id)), searches: searchesOf(queries) }),
        (now) => now.completed === settled.completed && now.searches === settled.searches,
        { what: `paused scrape job ${job.id} unmoved`, forMs: 500 },
      );
      settledBefore = still.completed;
      if (still.status === 'completed') break;
      expect(still.status).toBe('paused');

      const resumed = await suite.agent.post(`/api/scrape/jobs/${job.id}/resume`);
      expect(resumed.status).toBe(200);
      expect(resumed.body.status).toBe('processing');
    }
    expect(pauses).toBeGreaterThanOrEqual(2);
    await waitForStatus(suite.agent, job.id, ['completed']);
    await expectExactlyOnce(job.id, rows);
  });

  it('pauses one job while another on the same worker keeps going', async () => {
    suite.servers.serper.setMode({ kind: 'delay', ms: 15 });
    const a = companyRows(200, 2, suite.servers.serper, 'twoa');
    const b = companyRows(200, 2, suite.servers.serper, 'twob');
    const jobA = await upload(suite.agent, scrapeForm(a.csv));
    const jobB = await upload(suite.agent, scrapeForm(b.csv));
    await eventually(() => counters(jobA.id), (c) => c.completed >= 10, { what: `scrape job ${jobA.id} past 10 items` });
    expect((await suite.agent.post(`/api/scrape/jobs/${jobA.id}/pause`)).status).toBe(200);
    await waitForStatus(suite.agent, jobB.id, ['completed']);
    await waitForPausedAtRest(suite.h, suite.servers.serper, jobA.id);
    const heldA = await counters(jobA.id);
    expect(heldA.status).toBe('paused');
    // As in the test above: at rest, a batch that ignored the pause would show within one workflow task and a 15 ms search.
    await throughout(() => counters(jobA.id), (c) => c.completed === heldA.completed, { what: `paused scrape job ${jobA.id} unmoved`, forMs: 500 });
    expect(heldA.completed).toBeLessThan(200);
    expect((await suite.agent.post(`/api/scrape/jobs/${jobA.id}/resume`)).status).toBe(200);
    await waitForStatus(suite.agent, jobA.id, ['completed']);
    await expectExactlyOnce(jobA.id, a);
    await expectExactlyOnce(jobB.id, b);
  });

  it('answers 409 invalid_state with the current status where pause or resume is not allowed', async () => {
    const rows = companyRows(3, 1, suite.servers.serper, 'st');
    const job = await upload(suite.agent, scrapeForm(rows.csv));
    await waitForStatus(suite.agent, job.id, ['completed']);
    expect(expectError(await suite.agent.post(`/api/scrape/jobs/${job.id}/pause`), 409, 'invalid_state').details).toEqual({ currentState: 'completed' });
    expect(expectError(await suite.agent.post(`/api/scrape/jobs/${job.id}/resume`), 409, 'invalid_state').details).toEqual({ currentState: 'completed' });

    suite.servers.serper.setMode({ kind: 'delay', ms: 200 });
    const slow = await upload(suite.agent, scrapeForm(companyRows(50, 5, suite.servers.serper, 'st2').csv));
    await waitForStatus(suite.agent, slow.id, ['processing']);
    expect(expectError(await suite.agent.post(`/api/scrape/jobs/${slow.id}/resume`), 409, 'invalid_state').details).toEqual({ currentState: 'processing' });
    expect((await suite.agent.post(`/api/scrape/jobs/${slow.id}/pause`)).status).toBe(200);
    expect(expectError(await suite.agent.post(`/api/scrape/jobs/${slow.id}/pause`), 409, 'invalid_state').details).toEqual({ currentState: 'paused' });
  });

  it("answers 404 for another organization's job and 400 for a malformed id", async () => {
    const job = await upload(suite.agent, scrapeForm('company\nAcme\n'));
    const { agent: other } = await suite.h.signup();
    for (const action of ['pause', 'resume', 'sync']) {
      expectError(await other.post(`/api/scrape/jobs/${job.id}/${action}`), 404, 'not_found');
      expectError(await suite.agent.post(`/api/scrape/jobs/not-a-uuid/${action}`), 400, 'validation_error');
    }
  });
});

describe('scrape workflow: cancelled by an operator', () => {
  it.each(['processing', 'paused'])('ends failed with its reason and its scrape.failed event when cancelled while %s', async (state) => {
    suite.servers.serper.setMode({ kind: 'delay', ms: 200 });
    const job = await upload(suite.agent, scrapeForm(companyRows(50, 5, suite.servers.serper, `cancel-${state}`).csv));
    await waitForStatus(suite.agent, job.id, ['processing']);
    if (state === 'paused') expect((await suite.agent.post(`/api/scrape/jobs/${job.id}/pause`)).status).toBe(200);
    await suite.h.temporal.workflow.getHandle(`scrape-${job.id}`).cancel();
    const failed = await waitForStatus(suite.agent, job.id, ['failed']);
    expect(failed.failureReason).toBe('cancelled by an operator');
    // The event follows the failure in the workflow's tail.
    const events = await eventually(() => suite.h.sql('select type from webhook_event where job_id = ?', [job.id]), (rows) => rows.length > 0, {
      what: `an event of scrape job ${job.id}`,
    });
    expect(events).toEqual([{ type: 'scrape.failed' }]);
  });
});

describe('scrape workflow: a job paused before it starts', () => {
  it('pauses from pending, and a worker that starts later holds it until resume', async () => {
    const queue = `scrape-late-${Date.now()}`;
    const api = await startHarness({ env: { TEMPORAL_TASK_QUEUE: queue, RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_BURST: '100000' } });
    let worker: Harness | null = null;
    try {
      const { agent: own } = await api.signup();
      const rows = companyRows(20, 2, suite.servers.serper, 'late');
      const job = await upload(own, scrapeForm(rows.csv));
      expect(job.status).toBe('pending');
      expect((await own.post(`/api/scrape/jobs/${job.id}/pause`)).body.status).toBe('paused');

      worker = await startScrapeHarness(suite.servers, { TEMPORAL_TASK_QUEUE: queue });
      // The workflow runs now, but holds. The pause signal came before the worker, so it is in the first workflow
      // task; a batch that task started would be recorded with its completion. None is: nothing is searched.
      const events = await eventually(
        async () => (await api.temporal.workflow.getHandle(`scrape-${job.id}`).fetchHistory()).events ?? [],
        (all) => all.some((e) => e.workflowTaskCompletedEventAttributes),
        { what: `the first workflow task of scrape job ${job.id}`, timeoutMs: 30_000 },
      );
      expect(events.filter((e) => e.activityTaskScheduledEventAttributes)).toEqual([]);
      expect((await jobOf(own, job.id)).completedItems).toBe(0);
      expect(searchesOf(new Set(rows.queries))).toBe(0);

      expect((await own.post(`/api/scrape/jobs/${job.id}/resume`)).body.status).toBe('processing');
      await waitForStatus(own, job.id, ['completed']);
      const done = await jobOf(own, job.id);
      expect(done).toMatchObject({ completedItems: 20, foundItems: 10 });
    } finally {
      await worker?.stop();
      await api.stop();
    }
  });
});

describe('scrape workflow: provider failures', () => {
  it('fails the job with a clear reason when the provider rejects the key (default adapter wiring)', async () => {
    const bad = await startScrapeHarness(suite.servers, { SERPER_API_KEY: 'wrong-key' }, false);
    try {
      const { agent: own } = await bad.signup();
      const job = await upload(own, scrapeForm('company\nAcme\nGlobex\n'));
      const failed = await waitForStatus(own, job.id, ['failed', 'completed']);
      expect(failed.status).toBe('failed');
      expect(failed.failureReason).toMatch(/search provider cannot be used: serper rejected the API key/i);
      expect(failed.failureReason).not.toContain('wrong-key');
      expect(failed.completedAt).not.toBeNull();
      expect(failed.completedItems).toBe(0);
      // No row stays `pending` on a finished job: each says it was never searched, and why.
      expect(failed.items.length).toBeGreaterThan(0);
      for (const item of failed.items) expect(item).toMatchObject({ status: 'failed', error: `Not searched: the job stopped (${failed.failureReason})` });
      expectError(await own.post(`/api/scrape/jobs/${job.id}/pause`), 409, 'invalid_state');
      await expect(bad.temporal.workflow.getHandle(`scrape-${job.id}`).result()).rejects.toThrow();
    } finally {
      await bad.stop();
    }
  });

  it('names a missing key as missing, not as rejected', async () => {
    const unconfigured = await startScrapeHarness(suite.servers, { SERPER_API_KEY: '' }, false);
    try {
      const { agent: own } = await unconfigured.signup();
      const job = await upload(own, scrapeForm('company\nAcme\n'));
      const failed = await waitForStatus(own, job.id, ['failed', 'completed']);
      expect(failed.failureReason).toBe('The search provider cannot be used: serper has no API key configured');
      expect(failed.items[0]).toMatchObject({ status: 'failed', error: `Not searched: the job stopped (${failed.failureReason})` });
    } finally {
      await unconfigured.stop();
    }
  });

  it('fails the job when the key is revoked while it runs (Brave answers 422 SUBSCRIPTION_TOKEN_INVALID)', async () => {
    const brave = await startScrapeHarness(suite.servers, { SEARCH_PROVIDER: 'brave' });
    try {
      const { agent: own } = await brave.signup();
      suite.servers.brave.setMode({ kind: 'bad-key' });
      const job = await upload(own, scrapeForm('company\nAcme\n'));
      const failed = await waitForStatus(own, job.id, ['failed', 'completed']);
      expect(failed).toMatchObject({ status: 'failed' });
      expect(failed.failureReason).toContain('SUBSCRIPTION_TOKEN_INVALID');
    } finally {
      await brave.stop();
    }
  });

  // Twelve bad answers: the four searches in flight each exhaust their three in-call attempts, so the
  // activity fails and Temporal retries it (a rate limit after the provider's Retry-After).
  it.each([
    ['429 with Retry-After', { kind: 'rate-limited', retryAfter: '1' }],
    ['503', { kind: 'server-error', status: 503 }],
    ['timeouts', { kind: 'delay', ms: 2_500 }],
  ] as const)('retries %s through Temporal with backoff and completes every item', async (label, mode) => {
    const rows = companyRows(12, 2, suite.servers.serper, `flaky${label.length}`);
    suite.servers.serper.setMode(mode, 12);
    const job = await upload(suite.agent, scrapeForm(rows.csv));
    await waitForStatus(suite.agent, job.id, ['completed', 'failed'], 120_000);
    expect(await jobOf(suite.agent, job.id)).toMatchObject({ status: 'completed', completedItems: 12, foundItems: 6 });
    const counts = queryCounts(suite.servers.serper.requests);
    expect(rows.queries.filter((q) => !counts.get(q))).toEqual([]);
    const { events } = await suite.h.temporal.workflow.getHandle(`scrape-${job.id}`).fetchHistory();
    const attempts = (events ?? []).map((e) => e.activityTaskStartedEventAttributes?.attempt ?? 0);
    expect(Math.max(...attempts)).toBeGreaterThanOrEqual(2);
  });

  it('fails only the item whose query the provider refuses for good; the job goes on', async () => {
    const refusing = await startHarness({
      worker: true,
      env: { ...suite.servers.urls, ...suite.servers.keys, RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_BURST: '100000' },
      deps: (base) => {
        const real = createSearchProvider(base.config, FAST_TUNING);
        return {
          ...base,
          search: {
            name: real.name,
            search: async (q: string, count: number) => {
              if (q.includes('Refused')) throw new ProviderRequestError('serper', 'serper refused the request (HTTP 400): Query too long', 400);
              return real.search(q, count);
            },
          },
        };
      },
    });
    try {
      const { agent: own } = await refusing.signup();
      const job = await upload(own, scrapeForm('company\nFine Co\nRefused Co\nAlso Fine\n'));
      await waitForStatus(own, job.id, ['completed', 'failed']);
      const done = await jobOf(own, job.id);
      expect(done).toMatchObject({ status: 'completed', completedItems: 3, foundItems: 0 });
      expect(done.items.map((i: { status: string }) => i.status)).toEqual(['not_found', 'failed', 'not_found']);
      expect(done.items[1].error).toContain('Query too long');
    } finally {
      await refusing.stop();
    }
  });

  it('searches with Brave when SEARCH_PROVIDER=brave (highlight markup stripped from titles)', async () => {
    const brave = await startScrapeHarness(suite.servers, { SEARCH_PROVIDER: 'brave' });
    try {
      const { agent: own } = await brave.signup();
      suite.servers.brave.fixtures.results.set('site:linkedin.com/in "Pied Piper" "CEO"', [
        { title: 'Richard Hendricks - CEO - <strong>Pied Piper</strong> | LinkedIn', url: 'https://www.linkedin.com/in/richard-hendricks' },
      ]);
      const job = await upload(own, scrapeForm('company,title\nPied Piper,CEO\n'));
      await waitForStatus(own, job.id, ['completed']);
      expect((await jobOf(own, job.id)).items[0]).toMatchObject({
        status: 'found',
        firstName: 'Richard',
        lastName: 'Hendricks',
        company: 'Pied Piper',
        networkUrl: 'https://www.linkedin.com/in/richard-hendricks',
      });
      expect(suite.servers.brave.requests.some((r) => r.query.q === 'site:linkedin.com/in "Pied Piper" "CEO"')).toBe(true);
    } finally {
      await brave.stop();
    }
  });
});

describe('scrape workflow: the job is gone', () => {
  it('ends quietly when the job row is deleted while it runs (as with its organization)', async () => {
    suite.servers.serper.setMode({ kind: 'delay', ms: 15 });
    const rows = companyRows(200, 3, suite.servers.serper, 'gone');
    const job = await upload(suite.agent, scrapeForm(rows.csv));
    await eventually(() => counters(job.id), (c) => c.completed > 0, { what: `scrape job ${job.id} under way` });
    await suite.h.sql('delete from scrape_job where id = ?', [job.id]);
    await expectEndedOnJobGone(suite.h, `scrape-${job.id}`);
    expectError(await suite.agent.get(`/api/scrape/jobs/${job.id}`), 404, 'not_found');
  });
});

describe('scrape workflow: worker restarts', () => {
  it('continues on another worker after the first one is shut down mid-job, each item settled exactly once', async () => {
    const queue = `scrape-restart-${Date.now()}`;
    // Long enough to outlast the first worker's 2 s shutdown grace time, after which its activity is cancelled.
    suite.servers.serper.setMode({ kind: 'delay', ms: 40 });
    const first = await startScrapeHarness(suite.servers, { TEMPORAL_TASK_QUEUE: queue });
    let second: Harness | null = null;
    try {
      const { agent: own } = await first.signup();
      const rows = companyRows(600, 4, suite.servers.serper, 'restart');
      const job = await upload(own, scrapeForm(rows.csv));
      await eventually(() => counters(job.id), (c) => c.completed >= 40, { what: `scrape job ${job.id} past 40 items` });
      first.worker!.shutdown();
      await eventually(() => first.worker!.getState(), (state) => state === 'STOPPED', { what: 'the first worker stopped', timeoutMs: 30_000 });
      const atStop = (await counters(job.id)).completed;
      expect(atStop).toBeLessThan(600);

      second = await startScrapeHarness(suite.servers, { TEMPORAL_TASK_QUEUE: queue });
      await waitForStatus(own, job.id, ['completed'], 180_000);
      const done = await jobOf(own, job.id);
      expect(done).toMatchObject({ completedItems: 600, foundItems: rows.found.size });
      const settled = await first.sql(
        `select count(*)::int as n, count(*) filter (where status = 'found')::int as found, count(*) filter (where processed_at is null)::int as open
         from scrape_item where job_id = ?`,
        [job.id],
      );
      expect(settled[0]).toEqual({ n: 600, found: rows.found.size, open: 0 });
      // A search under way at the shutdown may be repeated; none is skipped.
      const counts = queryCounts(suite.servers.serper.requests);
      expect(rows.queries.filter((q) => !counts.get(q))).toEqual([]);
      expect(rows.queries.filter((q) => (counts.get(q) ?? 0) > 1).length).toBeLessThanOrEqual(4);
    } finally {
      await second?.stop();
      await first.stop();
    }
  });
});
