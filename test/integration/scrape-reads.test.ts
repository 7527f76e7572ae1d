import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { expectError } from '../support/agent.ts';
import { eventually } from '../support/eventually.ts';
import { startHarness } from '../support/harness.ts';
import { companyRows, jobOf, personOf, scrapeForm, upload, waitForPausedAtRest, waitForStatus, scrapeSuite } from '../support/scrape.ts';

const suite = scrapeSuite({}, { resetAfterEach: true });

const HEADER = ['first_name', 'last_name', 'company', 'role', 'network_url', 'status'];

describe('GET /api/scrape/jobs', () => {
  it('lists only the organization’s jobs, newest first, filtered by status, with correct pages', async () => {
    const { agent: own } = await suite.h.signup();
    const empty = await own.get('/api/scrape/jobs');
    expect(empty.body).toEqual({ data: [], total: 0, page: 1, limit: 20, totalPages: 0 });

    const done = [];
    for (let i = 0; i < 3; i++) done.push(await upload(own, scrapeForm(`company\nList Co ${i}\n`, { fields: { name: `done ${i}` } })));
    for (const job of done) await waitForStatus(own, job.id, ['completed']);

    suite.servers.serper.setMode({ kind: 'delay', ms: 300 });
    const paused = await upload(own, scrapeForm(companyRows(30, 2, suite.servers.serper, 'lp').csv, { fields: { name: 'paused' } }));
    expect((await own.post(`/api/scrape/jobs/${paused.id}/pause`)).status).toBe(200);
    // Searches under way at the pause finish before the provider turns the key down.
    await waitForPausedAtRest(suite.h, suite.servers.serper, paused.id);
    suite.servers.serper.setMode({ kind: 'bad-key' });
    const failed = await upload(own, scrapeForm('company\nNope\n', { fields: { name: 'failed' } }));
    await waitForStatus(own, failed.id, ['failed']);
    suite.servers.serper.setMode({ kind: 'normal' });

    const all = await own.get('/api/scrape/jobs');
    expect(all.body).toMatchObject({ total: 5, page: 1, limit: 20, totalPages: 1 });
    expect(all.body.data.map((j: { name: string }) => j.name)).toEqual(['failed', 'paused', 'done 2', 'done 1', 'done 0']);
    expect(all.body.data[0].items).toBeUndefined();

    const page2 = await own.get('/api/scrape/jobs?page=2&limit=2');
    expect(page2.body).toMatchObject({ total: 5, page: 2, limit: 2, totalPages: 3 });
    expect(page2.body.data.map((j: { name: string }) => j.name)).toEqual(['done 2', 'done 1']);
    const beyond = await own.get('/api/scrape/jobs?page=9&limit=2');
    expect(beyond.body).toMatchObject({ data: [], total: 5, totalPages: 3 });

    const completed = await own.get('/api/scrape/jobs?status=completed&limit=2');
    expect(completed.body).toMatchObject({ total: 3, totalPages: 2 });
    expect(completed.body.data.every((j: { status: string }) => j.status === 'completed')).toBe(true);
    expect((await own.get('/api/scrape/jobs?status=paused')).body.data.map((j: { id: string }) => j.id)).toEqual([paused.id]);
    expect((await own.get('/api/scrape/jobs?status=failed')).body.data.map((j: { id: string }) => j.id)).toEqual([failed.id]);
    expect((await own.get('/api/scrape/jobs?status=pending')).body).toMatchObject({ data: [], total: 0, totalPages: 0 });

    const { agent: other } = await suite.h.signup();
    expect((await other.get('/api/scrape/jobs')).body.total).toBe(0);

    for (const bad of ['page=0', 'page=-1', 'page=x', 'limit=0', 'limit=101', 'limit=2.5', 'status=done', 'status=PAUSED']) {
      expectError(await own.get(`/api/scrape/jobs?${bad}`), 400, 'validation_error');
    }
    expect((await own.get('/api/scrape/jobs?limit=100')).status).toBe(200);
  });
});

describe('GET /api/scrape/jobs/:jobId', () => {
  it('answers 400 for a malformed id and 404 for a missing job or one of another organization', async () => {
    const job = await upload(suite.agent, scrapeForm('company\nAcme\n'));
    const { agent: other } = await suite.h.signup();
    expectError(await suite.agent.get('/api/scrape/jobs/123'), 400, 'validation_error');
    expectError(await suite.agent.get('/api/scrape/jobs/01938f6e-0000-7000-8000-000000000000'), 404, 'not_found');
    expectError(await other.get(`/api/scrape/jobs/${job.id}`), 404, 'not_found');
    expectError(await other.get(`/api/scrape/jobs/${job.id}/download`), 404, 'not_found');
    expectError(await suite.agent.get(`/api/scrape/jobs/${job.id}?itemsLimit=0`), 400, 'validation_error');
  });

  it('pages the items by row number with itemsAfterRow and itemsLimit', async () => {
    const job = await upload(suite.agent, scrapeForm(companyRows(7, 2, suite.servers.serper, 'pg').csv));
    await waitForStatus(suite.agent, job.id, ['completed']);
    const full = await jobOf(suite.agent, job.id);
    expect(full.items.map((i: { rowNumber: number }) => i.rowNumber)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const part = (await suite.agent.get(`/api/scrape/jobs/${job.id}?itemsAfterRow=3&itemsLimit=2`)).body;
    expect(part.items).toEqual(full.items.slice(3, 5));
    expect(part).toMatchObject({ id: job.id, totalItems: 7, completedItems: 7, foundItems: 3 });
  });

  it('returns all 50,000 items of a large job in row order', { timeout: 180_000 }, async () => {
    // No worker: the job stays pending, which is all a read needs.
    const api = await startHarness({ env: { RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_BURST: '100000' } });
    try {
      const { agent: own } = await api.signup();
      const csv = 'company,role\n' + Array.from({ length: 50_000 }, (_, i) => `Big ${i + 1},Role ${i % 7}`).join('\n') + '\n';
      const job = await upload(own, scrapeForm(csv));
      expect(job.totalItems).toBe(50_000);
      const res = await own.get(`/api/scrape/jobs/${job.id}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body.items).toHaveLength(50_000);
      expect(res.body.items.every((item: { rowNumber: number; company: string }, i: number) => item.rowNumber === i + 1 && item.company === `Big ${i + 1}`)).toBe(
        true,
      );
      // The detail reads items through the (job_id, row_number) index, never a sort of the whole table.
      const plan = await api.sql(`explain select id from scrape_item where job_id = ? and row_number > 0 order by row_number limit 2000`, [job.id]);
      expect(JSON.stringify(plan)).toMatch(/scrape_item_job_id_row_number_unique/);
    } finally {
      await api.stop();
    }
  });
});

describe('GET /api/scrape/jobs/:jobId/download', () => {
  it('streams the CSV in row order, defuses formulas, names the file safely, and keeps found items with foundOnly=true', async () => {
    suite.servers.serper.fixtures.results.set('site:linkedin.com/in "Acme, Inc." "@Head"', [
      { title: '-Jane Doe - @Head - Acme | LinkedIn', link: 'https://www.linkedin.com/in/jane' },
    ]);
    const csv =
      'company,role\n' +
      '"=HYPERLINK(""http://evil.test"")",+1 555\n' +
      '"Acme, Inc.",@Head\n' +
      'Tabbed,-minus\n';
    const job = await upload(suite.agent, scrapeForm(csv, { fields: { name: 'Q3 "hot"/leads; x' } }));
    await waitForStatus(suite.agent, job.id, ['completed']);

    const res = await suite.agent.get(`/api/scrape/jobs/${job.id}/download`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const disposition = res.headers.get('content-disposition')!;
    expect(disposition).toBe(`attachment; filename="Q3 _hot_leads_ x.csv"; filename*=UTF-8''${encodeURIComponent('Q3 "hot"/leads; x.csv')}`);

    const lines = res.text.split('\r\n');
    expect(lines[0]).toBe(HEADER.join(','));
    const records = parse(res.text) as string[][];
    expect(records).toEqual([
      HEADER,
      // A sign followed by a phone number is no formula (CONTRACT §15): it stays as it was.
      ['', '', `'=HYPERLINK("http://evil.test")`, '+1 555', '', 'not_found'],
      ["'-Jane", 'Doe', 'Acme, Inc.', "'@Head", 'https://www.linkedin.com/in/jane', 'found'],
      ['', '', 'Tabbed', "'-minus", '', 'not_found'],
    ]);

    const found = parse((await suite.agent.get(`/api/scrape/jobs/${job.id}/download?foundOnly=true`)).text) as string[][];
    expect(found).toEqual([HEADER, ["'-Jane", 'Doe', 'Acme, Inc.', "'@Head", 'https://www.linkedin.com/in/jane', 'found']]);
    const notOnly = parse((await suite.agent.get(`/api/scrape/jobs/${job.id}/download?foundOnly=false`)).text) as string[][];
    expect(notOnly).toHaveLength(4);
    expectError(await suite.agent.get(`/api/scrape/jobs/${job.id}/download?foundOnly=yes`), 400, 'validation_error');
  });
});

describe('POST /api/scrape/jobs/:jobId/sync', () => {
  const leadsOf = (listId: string) =>
    suite.h.sql(`select first_name, last_name, title, company, network_url, source from lead where list_id = ? order by network_url`, [listId]);

  it('creates the list on the first call, then adds only items found since; never twice', async () => {
    suite.servers.serper.setMode({ kind: 'delay', ms: 40 });
    const rows = companyRows(60, 3, suite.servers.serper, 'sy');
    const job = await upload(suite.agent, scrapeForm(rows.csv, { fields: { name: 'Sync me' } }));
    await eventually(async () => (await jobOf(suite.agent, job.id)).foundItems, (n) => n >= 3, { what: `3 items found by scrape job ${job.id}` });
    expect((await suite.agent.post(`/api/scrape/jobs/${job.id}/pause`)).status).toBe(200);

    const first = await suite.agent.post(`/api/scrape/jobs/${job.id}/sync`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ success: true, listId: expect.any(String), message: expect.stringContaining('Sync me') });
    const foundAtFirst = (await suite.h.sql(`select count(*)::int as n from scrape_item where job_id = ? and synced_at is not null`, [job.id]))[0].n;
    expect(first.body.leadsCount).toBe(foundAtFirst);
    expect(first.body.leadsCount).toBeGreaterThan(0);
    const list = (await suite.agent.get(`/api/lists/${first.body.listId}`)).body;
    expect(list).toMatchObject({ name: 'Sync me', leadCount: first.body.leadsCount });
    expect((await jobOf(suite.agent, job.id)).listId).toBe(first.body.listId);

    expect((await suite.agent.post(`/api/scrape/jobs/${job.id}/resume`)).status).toBe(200);
    await waitForStatus(suite.agent, job.id, ['completed']);
    suite.servers.serper.setMode({ kind: 'normal' });
    const second = await suite.agent.post(`/api/scrape/jobs/${job.id}/sync`);
    expect(second.body).toMatchObject({ success: true, listId: first.body.listId, leadsCount: rows.found.size - first.body.leadsCount });
    const third = await suite.agent.post(`/api/scrape/jobs/${job.id}/sync`);
    expect(third.body).toMatchObject({ listId: first.body.listId, leadsCount: 0 });

    const leads = await leadsOf(first.body.listId);
    expect(leads).toHaveLength(rows.found.size);
    expect(new Set(leads.map((l: { network_url: string }) => l.network_url)).size).toBe(rows.found.size);
    const i = [...rows.found][0]!;
    expect(leads).toContainEqual({
      first_name: personOf(i).firstName,
      last_name: personOf(i).lastName,
      title: 'VP Sales',
      company: `sy Co ${i}`,
      network_url: `https://www.linkedin.com/in/sy-person-${i}`,
      source: 'scrape',
    });
  });

  it('is safe under concurrent calls: one list, every found item exactly once', async () => {
    const rows = companyRows(90, 2, suite.servers.serper, 'cc');
    const job = await upload(suite.agent, scrapeForm(rows.csv, { fields: { name: 'Concurrent sync' } }));
    await waitForStatus(suite.agent, job.id, ['completed']);
    const results = await Promise.all(Array.from({ length: 6 }, () => suite.agent.post(`/api/scrape/jobs/${job.id}/sync`)));
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(200));
    expect(new Set(results.map((r) => r.body.listId)).size).toBe(1);
    expect(results.reduce((sum, r) => sum + r.body.leadsCount, 0)).toBe(rows.found.size);
    const listId = results[0]!.body.listId;
    expect(await leadsOf(listId)).toHaveLength(rows.found.size);
    const lists = await suite.h.sql(`select count(*)::int as n from lead_list where organization_id = ? and name = 'Concurrent sync'`, [suite.organizationId]);
    expect(lists[0].n).toBe(1);
  });

  it('starts a new list with every found item when the synced list was deleted', async () => {
    const rows = companyRows(10, 2, suite.servers.serper, 'dl');
    const job = await upload(suite.agent, scrapeForm(rows.csv));
    await waitForStatus(suite.agent, job.id, ['completed']);
    const first = (await suite.agent.post(`/api/scrape/jobs/${job.id}/sync`)).body;
    expect((await suite.agent.delete(`/api/lists/${first.listId}`)).status).toBe(204);
    const again = (await suite.agent.post(`/api/scrape/jobs/${job.id}/sync`)).body;
    expect(again.listId).not.toBe(first.listId);
    expect(again.leadsCount).toBe(5);
    expect(await leadsOf(again.listId)).toHaveLength(5);
  });
});
