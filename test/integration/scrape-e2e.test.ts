import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { seededRandom } from '../support/fuzz.ts';
import { companyRows, jobOf, personOf, queryCounts, scrapeForm, upload, waitForPausedAtRest, waitForStatus, scrapeSuite } from '../support/scrape.ts';

const suite = scrapeSuite();

describe('scrape job end to end', () => {
  it('a 1,000-row upload with pauses and resumes completes with every item processed once, downloads and syncs exactly the found leads', { timeout: 300_000 }, async () => {
    suite.servers.serper.setMode({ kind: 'delay', ms: 8 });
    const rows = companyRows(1000, 4, suite.servers.serper, 'e2e');
    const job = await upload(suite.agent, scrapeForm(rows.csv, { fileName: 'thousand.csv' }));
    expect(job).toMatchObject({ name: 'thousand', totalItems: 1000, inputType: 'companies' });

    // Random moments, the same on every run: a pause after a seeded number of newly settled items; the resume
    // either at once (racing the pause) or once the pause has taken hold.
    const random = seededRandom(1000);
    const progress = async () => (await suite.agent.get(`/api/scrape/jobs/${job.id}?itemsLimit=1`)).body;
    let cycles = 0;
    for (let settled = 0; ; ) {
      const target = settled + 1 + random.int(80);
      settled = (
        await eventually(progress, (p) => p.completedItems >= target || p.status === 'completed', {
          what: `scrape job ${job.id} past ${target} items`,
        })
      ).completedItems;
      const paused = await suite.agent.post(`/api/scrape/jobs/${job.id}/pause`);
      if (paused.status === 409) break;
      cycles++;
      if (random.int(2) === 1) await waitForPausedAtRest(suite.h, suite.servers.serper, job.id);
      const resumed = await suite.agent.post(`/api/scrape/jobs/${job.id}/resume`);
      // A pause landing after the last item still completes the job.
      if (resumed.status === 409) break;
    }
    expect(cycles).toBeGreaterThanOrEqual(2);
    await waitForStatus(suite.agent, job.id, ['completed']);

    const done = await jobOf(suite.agent, job.id);
    expect(done).toMatchObject({ status: 'completed', completedItems: 1000, foundItems: 250 });
    const counts = queryCounts(suite.servers.serper.requests);
    expect(rows.queries.filter((q) => counts.get(q) !== 1)).toEqual([]);

    const csv = parse((await suite.agent.get(`/api/scrape/jobs/${job.id}/download`)).text) as string[][];
    expect(csv).toHaveLength(1001);
    expect(csv[0]).toEqual(['first_name', 'last_name', 'company', 'role', 'network_url', 'status']);
    const person = personOf(4);
    expect(csv[4]).toEqual([person.firstName, person.lastName, 'e2e Co 4', 'VP Sales', 'https://www.linkedin.com/in/e2e-person-4', 'found']);
    expect(csv[5]).toEqual(['', '', 'e2e Co 5', 'VP Sales', '', 'not_found']);
    const foundCsv = parse((await suite.agent.get(`/api/scrape/jobs/${job.id}/download?foundOnly=true`)).text) as string[][];
    expect(foundCsv.slice(1).map((r) => r[2])).toEqual([...rows.found].map((i) => `e2e Co ${i}`));

    const sync = await suite.agent.post(`/api/scrape/jobs/${job.id}/sync`);
    expect(sync.body).toMatchObject({ success: true, leadsCount: 250 });
    const leads = await suite.h.sql(`select network_url from lead where list_id = ? and source = 'scrape'`, [sync.body.listId]);
    expect(new Set(leads.map((l: { network_url: string }) => l.network_url))).toEqual(
      new Set([...rows.found].map((i) => `https://www.linkedin.com/in/e2e-person-${i}`)),
    );
    expect((await suite.agent.post(`/api/scrape/jobs/${job.id}/sync`)).body.leadsCount).toBe(0);

    const history = await suite.h.temporal.workflow.getHandle(`scrape-${job.id}`).fetchHistory();
    expect(history.events?.length).toBeLessThan(2_000);
  });
});
