import { describe, expect, it } from 'vitest';
import { expectError } from '../support/agent.ts';
import { jobOf, queryCounts, scrapeForm, upload, waitForStatus, scrapeSuite } from '../support/scrape.ts';

const suite = scrapeSuite({ SCRAPE_MAX_ROWS: '50', SCRAPE_MAX_FILE_BYTES: '4000' });

const storedJobs = async () => Number((await suite.h.sql('select count(*)::int as n from scrape_job where organization_id = ?', [suite.organizationId]))[0].n);
const storedItems = async () =>
  Number((await suite.h.sql('select count(*)::int as n from scrape_item i join scrape_job j on j.id = i.job_id where j.organization_id = ?', [suite.organizationId]))[0].n);

/** Items of a finished job, in row order, without ids. */
async function settledItems(jobId: string) {
  await waitForStatus(suite.agent, jobId, ['completed']);
  const job = await jobOf(suite.agent, jobId);
  return job.items.map(({ id: _id, ...rest }: { id: string }) => rest);
}

describe('POST /api/scrape/jobs: input types', () => {
  it('companies: detected from `Company Name` and `Job Title`, searched as company + role, title parsed into the names', async () => {
    suite.servers.serper.fixtures.results.set('site:linkedin.com/in "Initech" "CTO"', [
      { title: 'Bill Lumbergh - CTO - Initech | LinkedIn', link: 'http://uk.linkedin.com/in/Bill-Lumbergh/?originalSubdomain=uk' },
    ]);
    const job = await upload(suite.agent, scrapeForm('Company Name;Job Title\nInitech;CTO\nNobody Corp;\n', { fileName: 'Q3 targets.csv' }));
    expect(job).toMatchObject({
      name: 'Q3 targets',
      status: 'pending',
      inputType: 'companies',
      totalItems: 2,
      completedItems: 0,
      foundItems: 0,
      failureReason: null,
      listId: null,
      completedAt: null,
    });
    const items = await settledItems(job.id);
    expect(items).toEqual([
      {
        rowNumber: 1,
        status: 'found',
        company: 'Initech',
        role: 'CTO',
        firstName: 'Bill',
        lastName: 'Lumbergh',
        domain: null,
        networkUrl: 'https://www.linkedin.com/in/bill-lumbergh',
        error: null,
      },
      { rowNumber: 2, status: 'not_found', company: 'Nobody Corp', role: null, firstName: null, lastName: null, domain: null, networkUrl: null, error: null },
    ]);
    const counts = queryCounts(suite.servers.serper.requests);
    expect(counts.get('site:linkedin.com/in "Initech" "CTO"')).toBe(1);
    expect(counts.get('site:linkedin.com/in "Nobody Corp"')).toBe(1);
    const done = await jobOf(suite.agent, job.id);
    expect(done).toMatchObject({ status: 'completed', completedItems: 2, foundItems: 1 });
    expect(done.completedAt).not.toBeNull();
  });

  it('names: first_name + last_name (+ organization) searched as name + company; the row keeps its own company', async () => {
    suite.servers.serper.fixtures.results.set('site:linkedin.com/in "Ada Lovelace" "Analytical Engines"', [
      { title: 'Ada Lovelace - Programmer - Engines Ltd | LinkedIn', link: 'https://www.linkedin.com/in/ada' },
    ]);
    const job = await upload(suite.agent, scrapeForm('First Name,Last Name,Organization\nAda,Lovelace,Analytical Engines\n'));
    expect(job.inputType).toBe('names');
    expect(await settledItems(job.id)).toEqual([
      expect.objectContaining({ status: 'found', firstName: 'Ada', lastName: 'Lovelace', company: 'Analytical Engines', role: 'Programmer' }),
    ]);
  });

  it('names: a `name` (full name) column is split into first and last name', async () => {
    const job = await upload(suite.agent, scrapeForm('name,company\nGrace Brewster Hopper,Navy\n'));
    expect(job.inputType).toBe('names');
    expect(await settledItems(job.id)).toEqual([expect.objectContaining({ firstName: 'Grace', lastName: 'Brewster Hopper', status: 'not_found' })]);
    expect(queryCounts(suite.servers.serper.requests).get('site:linkedin.com/in "Grace Brewster Hopper" "Navy"')).toBe(1);
  });

  it('domains: `website` + `position`, searched by the bare domain; company parsed from the title fills the empty company', async () => {
    suite.servers.serper.fixtures.results.set('site:linkedin.com/in "hooli.com" "Head of Sales"', [
      { title: 'Gavin Belson - Head of Sales - Hooli | LinkedIn', link: 'https://linkedin.com/in/gavin' },
    ]);
    const job = await upload(suite.agent, scrapeForm('Website,Position\nhttps://www.Hooli.com/about,Head of Sales\n'));
    expect(job.inputType).toBe('domains');
    expect(await settledItems(job.id)).toEqual([
      expect.objectContaining({ status: 'found', company: 'Hooli', role: 'Head of Sales', domain: 'https://www.Hooli.com/about', firstName: 'Gavin' }),
    ]);
  });

  it('domains: `company_domain`; a row without a usable value fails alone and the job completes', async () => {
    const job = await upload(suite.agent, scrapeForm('company_domain,role\nexample.org,CEO\nnot a domain,CEO\n'));
    expect(job.inputType).toBe('domains');
    const items = await settledItems(job.id);
    expect(items.map((i: { status: string }) => i.status)).toEqual(['not_found', 'failed']);
    expect(items[1].error).toMatch(/no value to search for/);
    expect((await jobOf(suite.agent, job.id)).completedItems).toBe(2);
  });

  it('an explicit inputType overrides detection, whether it comes before or after the file', async () => {
    const csv = 'company,domain\nAcme,acme.test\n';
    expect((await upload(suite.agent, scrapeForm(csv))).inputType).toBe('companies');
    const after = await upload(suite.agent, scrapeForm(csv, { fields: { inputType: 'domains', name: 'By domain' } }));
    expect(after).toMatchObject({ inputType: 'domains', name: 'By domain' });
    const before = await upload(suite.agent, scrapeForm(csv, { fields: { inputType: 'domains' }, fieldsFirst: true }));
    expect(before.inputType).toBe('domains');
    await settledItems(after.id);
    expect(queryCounts(suite.servers.serper.requests).get('site:linkedin.com/in "acme.test"')).toBeGreaterThanOrEqual(1);
  });
});

describe('POST /api/scrape/jobs: CSV edge cases', () => {
  it('BOM, semicolons, quoted fields with separators and newlines, blank lines, extra columns and ragged rows', async () => {
    const csv =
      '\uFEFFNotes;Company;Title;Extra\r\n' +
      '"multi\nline note";"Acme; Inc.";"VP ""Growth""";x\r\n' +
      '\r\n' +
      ';;\r\n' +
      'short;Globex\r\n' +
      'n;Umbrella;CISO;a;b;c\r\n';
    const job = await upload(suite.agent, scrapeForm(csv));
    expect(job).toMatchObject({ inputType: 'companies', totalItems: 3 });
    const items = await settledItems(job.id);
    expect(items.map((i: { rowNumber: number; company: string; role: string | null }) => [i.rowNumber, i.company, i.role])).toEqual([
      [1, 'Acme; Inc.', 'VP "Growth"'],
      [2, 'Globex', null],
      [3, 'Umbrella', 'CISO'],
    ]);
    const counts = queryCounts(suite.servers.serper.requests);
    expect(counts.get('site:linkedin.com/in "Acme; Inc." "VP Growth"')).toBe(1);
  });
});

describe('POST /api/scrape/jobs: rejections store nothing', () => {
  it('answers each unusable upload with its status and reason', async () => {
    const before = { jobs: await storedJobs(), items: await storedItems() };

    const empty = expectError(await suite.agent.post('/api/scrape/jobs', scrapeForm('')), 422, 'unprocessable');
    expect(empty.details.reason).toBe('empty');

    const headerOnly = expectError(await suite.agent.post('/api/scrape/jobs', scrapeForm('company,role\n\n')), 422, 'unprocessable');
    expect(headerOnly.details.reason).toBe('no_data_rows');

    const unknown = expectError(await suite.agent.post('/api/scrape/jobs', scrapeForm('foo,bar\n1,2\n')), 422, 'unprocessable');
    expect(unknown.details.reason).toBe('unrecognized_headers');
    expect(unknown.details.accepted).toEqual(expect.arrayContaining(['company', 'company_name', 'organization', 'role', 'title', 'job_title', 'position', 'first_name', 'last_name', 'full_name', 'name', 'domain', 'website', 'company_domain']));

    // Only a role: recognized, but no input type can use it.
    const roleOnly = expectError(await suite.agent.post('/api/scrape/jobs', scrapeForm('title\nCTO\n')), 422, 'unprocessable');
    expect(roleOnly.details.reason).toBe('unrecognized_headers');

    const missing = expectError(
      await suite.agent.post('/api/scrape/jobs', scrapeForm('company\nAcme\n', { fields: { inputType: 'names' } })),
      422,
      'unprocessable',
    );
    expect(missing.details).toMatchObject({ reason: 'missing_columns', inputType: 'names' });

    const badType = expectError(await suite.agent.post('/api/scrape/jobs', scrapeForm('company\nAcme\n', { fields: { inputType: 'people' } })), 400, 'validation_error');
    expect(JSON.stringify(badType.details)).toContain('inputType');

    const binary = expectError(await suite.agent.post('/api/scrape/jobs', scrapeForm(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]))), 415, 'unsupported_media_type');
    expect(binary.details.reason).toBe('binary');

    expectError(await suite.agent.post('/api/scrape/jobs', { file: 'company\nAcme\n' }), 415, 'unsupported_media_type');

    const noFile = new FormData();
    noFile.append('name', 'nothing');
    expect(expectError(await suite.agent.post('/api/scrape/jobs', noFile), 400, 'validation_error').details).toEqual([{ path: 'body.file', message: 'Required' }]);

    const rows = Array.from({ length: 51 }, (_, i) => `Co ${i}`).join('\n');
    const tooMany = expectError(await suite.agent.post('/api/scrape/jobs', scrapeForm(`company\n${rows}\n`)), 422, 'unprocessable');
    expect(tooMany.details).toEqual({ reason: 'too_many_rows', maxRows: 50 });

    // Over SCRAPE_MAX_FILE_BYTES (4000) but under the row limit: 413, read no further.
    const wide = Array.from({ length: 40 }, (_, i) => `Company number ${i} ${'x'.repeat(100)}`).join('\n');
    expectError(await suite.agent.post('/api/scrape/jobs', scrapeForm(`company\n${wide}\n`)), 413, 'payload_too_large');

    expect({ jobs: await storedJobs(), items: await storedItems() }).toEqual(before);
  });

  it('imports a file just under the limit from a body over it (received whole first, then read)', async () => {
    const pad = (i: number) => String(i).padStart(2, '0');
    const rows = Array.from({ length: 30 }, (_, i) => `Company number ${pad(i)} ${'y'.repeat(111)}`);
    const file = `company\n${rows.join('\n')}\n`;
    expect(file.length).toBeLessThanOrEqual(4000);
    const form = scrapeForm(file);
    // The multipart framing takes the body past SCRAPE_MAX_FILE_BYTES (4000): it may hold a file over it.
    expect((await new Response(form).arrayBuffer()).byteLength).toBeGreaterThan(4000);
    const job = await upload(suite.agent, form);
    expect(job.totalItems).toBe(30);
  });

  it('accepts exactly SCRAPE_MAX_ROWS rows', async () => {
    const rows = Array.from({ length: 50 }, (_, i) => `C${i}`).join('\n');
    const job = await upload(suite.agent, scrapeForm(`company\n${rows}\n`, { fields: { name: '  Fifty  ' } }));
    expect(job).toMatchObject({ totalItems: 50, name: 'Fifty' });
    const res = await suite.agent.post('/api/scrape/jobs', scrapeForm('company\nAcme\n'));
    expect(res.body.message).toBe('Scrape job created with 1 row');
  });

  it('needs a session, and the workflow carries the job id and search attributes', async () => {
    const { Agent: AgentClass } = await import('../support/agent.ts');
    expectError(await new AgentClass(suite.h.app).post('/api/scrape/jobs', scrapeForm('company\nAcme\n')), 401, 'unauthorized');

    const job = await upload(suite.agent, scrapeForm('company\nAcme\n'));
    const description = await suite.h.temporal.workflow.getHandle(`scrape-${job.id}`).describe();
    expect(description.type).toBe('scrapeWorkflow');
    const attributes = Object.fromEntries(description.typedSearchAttributes.getAll().map((pair) => [pair.key.name, pair.value]));
    expect(attributes).toMatchObject({ OrganizationId: suite.organizationId, JobKind: 'scrape' });
  });
});
