import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agent, expectError } from '../support/agent.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
let agent: Agent;
beforeAll(async () => {
  h = await startHarness();
  ({ agent } = await h.signup());
});
afterAll(() => h.stop());

const csvForm = (csv: string | Uint8Array, name = 'leads.csv') => {
  const form = new FormData();
  form.append('file', new Blob([csv], { type: 'text/csv' }), name);
  return form;
};

async function newList(name = 'Prospects') {
  const res = await agent.post('/api/lists', { name, description: 'Q4' });
  expect(res.status).toBe(201);
  return res.body as { id: string };
}

describe('lists', () => {
  it('creates, reads, renames, pages newest first, and deletes with its leads', async () => {
    const { agent: own } = await h.signup();
    const a = (await own.post('/api/lists', { name: 'A' })).body;
    const b = (await own.post('/api/lists', { name: 'B', description: 'second' })).body;
    expect(b).toMatchObject({ name: 'B', description: 'second', leadCount: 0 });
    expect(b.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const page = await own.get('/api/lists?limit=1');
    expect(page.body).toMatchObject({ total: 2, page: 1, limit: 1, totalPages: 2 });
    expect(page.body.data[0].id).toBe(b.id);
    expect((await own.get('/api/lists?page=2&limit=1')).body.data[0].id).toBe(a.id);

    const renamed = await own.patch(`/api/lists/${a.id}`, { name: 'A2' });
    expect(renamed.body).toMatchObject({ id: a.id, name: 'A2', description: null });

    await own.post(`/api/lists/${a.id}/leads`, { leads: [{ email: 'x@y.test' }] });
    expect((await own.get(`/api/lists/${a.id}`)).body.leadCount).toBe(1);
    expect((await own.delete(`/api/lists/${a.id}`)).status).toBe(204);
    expectError(await own.get(`/api/lists/${a.id}`), 404, 'not_found');
    const [{ n }] = await h.sql(`select count(*)::int as n from lead where list_id = ?`, [a.id]);
    expect(n).toBe(0);
  });

  it('validates pagination bounds and bodies with 400 in the contract shape', async () => {
    expectError(await agent.get('/api/lists?limit=101'), 400, 'validation_error');
    expectError(await agent.get('/api/lists?page=0'), 400, 'validation_error');
    expectError(await agent.get('/api/lists?limit=abc'), 400, 'validation_error');
    const err = expectError(await agent.post('/api/lists', { name: '' }), 400, 'validation_error');
    expect(err.details[0].path).toBe('json.name');
    expectError(await agent.post('/api/lists', { name: 'x', extra: 1 }), 400, 'validation_error');
    expect((await agent.get('/api/lists?page=999')).body.data).toEqual([]);
  });

  it('reports totalPages 0 for an empty collection', async () => {
    const { agent: fresh } = await h.signup();
    expect((await fresh.get('/api/lists')).body).toEqual({ data: [], total: 0, page: 1, limit: 20, totalPages: 0 });
  });
});

describe('leads', () => {
  it('bulk-adds leads with normalization of emails, phones and profile URLs', async () => {
    const list = await newList();
    const res = await agent.post(`/api/lists/${list.id}/leads`, {
      leads: [
        {
          firstName: ' Jane ',
          lastName: 'Doe',
          email: ' Jane.Doe@ACME.Example ',
          phone: '+1 (415) 555-0132',
          networkUrl: 'http://linkedin.com/in/jane-doe/?utm=x',
          company: 'Acme',
        },
        { email: 'not an email' },
        { phone: '12' },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.created).toBe(3);
    const [jane, odd, shortPhone] = res.body.leads;
    expect(jane).toMatchObject({
      listId: list.id,
      firstName: 'Jane',
      email: 'Jane.Doe@acme.example',
      phone: '+14155550132',
      networkUrl: 'https://www.linkedin.com/in/jane-doe',
      source: 'manual',
      emailStatus: null,
      emailVerifiedAt: null,
      enrichedAt: null,
    });
    expect(odd.email).toBe('not an email');
    expect(shortPhone.phone).toBe('12');
  });

  it('rejects an empty batch, more than 1000 leads and a non-profile URL', async () => {
    const list = await newList();
    expectError(await agent.post(`/api/lists/${list.id}/leads`, { leads: [] }), 400, 'validation_error');
    const many = Array.from({ length: 1001 }, (_, i) => ({ email: `a${i}@x.test` }));
    expectError(await agent.post(`/api/lists/${list.id}/leads`, { leads: many }), 400, 'validation_error');
    const bad = expectError(
      await agent.post(`/api/lists/${list.id}/leads`, { leads: [{ networkUrl: 'https://example.com/in/jane' }] }),
      400,
      'validation_error',
    );
    expect(bad.details[0].path).toBe('json.leads.0.networkUrl');
  });

  it('searches a list\'s leads by text in names, company and emails, case-insensitively, with LIKE characters taken literally', async () => {
    const list = await newList();
    const other = await newList();
    await agent.post(`/api/lists/${list.id}/leads`, {
      leads: [
        { firstName: 'Jane', lastName: 'Doe', company: 'Acme', email: 'jane@acme.test' },
        { firstName: 'John', company: 'Globex', email: 'john@globex.test', workEmail: 'j.roe@acme.test' },
        { firstName: 'Ann', company: '100% Growth_Co', email: 'ann@growth.test' },
      ],
    });
    await agent.post(`/api/lists/${other.id}/leads`, { leads: [{ firstName: 'Jane', company: 'Acme' }] });
    const names = async (query: string) => {
      const res = await agent.get(`/api/lists/${list.id}/leads?${query}`);
      expect(res.status).toBe(200);
      return res.body.data.map((lead: { firstName: string }) => lead.firstName);
    };
    expect(await names('search=ACME')).toEqual(['Jane', 'John']);
    expect(await names('search=doe')).toEqual(['Jane']);
    expect(await names('search=%25')).toEqual(['Ann']);
    expect(await names('search=_')).toEqual(['Ann']);
    expect(await names('search=nobody')).toEqual([]);
    expect(await names('search=acme&emailStatus=Valid')).toEqual([]);
    expect((await agent.get(`/api/lists/${list.id}/leads?search=acme&limit=1`)).body).toMatchObject({ total: 2, totalPages: 2 });
    expectError(await agent.get(`/api/lists/${list.id}/leads?search=${'x'.repeat(201)}`), 400, 'validation_error');
  });

  it('reads, filters by emailStatus, updates and deletes a lead', async () => {
    const list = await newList();
    const created = (await agent.post(`/api/lists/${list.id}/leads`, { leads: [{ email: 'a@x.test' }, { email: 'b@x.test' }] })).body.leads;
    await h.sql(`update lead set email_status = 'Valid' where id = ?`, [created[0].id]);
    const valid = await agent.get(`/api/lists/${list.id}/leads?emailStatus=Valid`);
    expect(valid.body.total).toBe(1);
    expect(valid.body.data[0].id).toBe(created[0].id);
    expectError(await agent.get(`/api/lists/${list.id}/leads?emailStatus=Great`), 400, 'validation_error');

    const lead = await agent.get(`/api/leads/${created[1].id}`);
    expect(lead.body.email).toBe('b@x.test');
    const patched = await agent.patch(`/api/leads/${created[1].id}`, { title: 'VP Sales', phone: '+44 20 7946 0958' });
    expect(patched.body).toMatchObject({ title: 'VP Sales', phone: '+442079460958', email: 'b@x.test' });
    expect((await agent.delete(`/api/leads/${created[1].id}`)).status).toBe(204);
    expectError(await agent.get(`/api/leads/${created[1].id}`), 404, 'not_found');
  });

  it('imports a CSV with aliases, BOM, semicolons and quoted newlines, skipping invalid rows', async () => {
    const list = await newList();
    const csv =
      '\uFEFFFirst Name;last_name;E-mail;Job Title;linkedin_url;Mobile;ignored\r\n' +
      'Ann;Lee;ann@acme.test;"Head of\nSales";https://uk.linkedin.com/in/ann-lee;+1 415 555 0100;zzz\r\n' +
      ';;;;;;\r\n' +
      'Bob;Ray;bob@acme.test;CTO;https://example.com/not-a-profile;;\r\n' +
      '\r\n' +
      'Cy;;cy@acme.test;;;;\r\n';
    const res = await agent.post(`/api/lists/${list.id}/leads/import`, csvForm(csv));
    expect(res.status).toBe(201);
    expect(res.body.created).toBe(2);
    expect(res.body.skipped).toBe(1);
    expect(res.body.errors).toEqual([{ row: 3, message: expect.stringContaining('networkUrl') }]);
    const leads = (await agent.get(`/api/lists/${list.id}/leads`)).body.data;
    expect(leads.map((l: { email: string }) => l.email)).toEqual(['ann@acme.test', 'cy@acme.test']);
    expect(leads[0]).toMatchObject({
      firstName: 'Ann',
      lastName: 'Lee',
      title: 'Head of\nSales',
      networkUrl: 'https://www.linkedin.com/in/ann-lee',
      phone: '+14155550100',
      source: 'import',
    });
  });

  it('imports comma-separated files and refuses unusable uploads', async () => {
    const list = await newList();
    const ok = await agent.post(`/api/lists/${list.id}/leads/import`, csvForm('email,company\n"a@b.test","Acme, Inc."\n'));
    expect(ok.body).toMatchObject({ created: 1, skipped: 0 });
    expect((await agent.get(`/api/lists/${list.id}/leads`)).body.data[0].company).toBe('Acme, Inc.');

    expectError(await agent.post(`/api/lists/${list.id}/leads/import`, csvForm('')), 422, 'unprocessable');
    expectError(await agent.post(`/api/lists/${list.id}/leads/import`, csvForm('email\n')), 422, 'unprocessable');
    const unknown = expectError(await agent.post(`/api/lists/${list.id}/leads/import`, csvForm('foo,bar\n1,2\n')), 422, 'unprocessable');
    expect(unknown.details.accepted).toContain('email');
    expectError(
      await agent.post(`/api/lists/${list.id}/leads/import`, csvForm(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1]))),
      415,
      'unsupported_media_type',
    );
    expectError(await agent.post(`/api/lists/${list.id}/leads/import`, { file: 'x' }), 415, 'unsupported_media_type');
  });

  it('refuses an upload over the size limit with 413 and stores nothing', async () => {
    const small = await startHarness({ env: { SCRAPE_MAX_FILE_BYTES: '2000' } });
    try {
      const { agent: a } = await small.signup();
      const list = (await a.post('/api/lists', { name: 'big' })).body;
      const rows = Array.from({ length: 200 }, (_, i) => `lead${i}@acme.test`).join('\n');
      expectError(await a.post(`/api/lists/${list.id}/leads/import`, csvForm(`email\n${rows}\n`)), 413, 'payload_too_large');
      expect((await a.get(`/api/lists/${list.id}`)).body.leadCount).toBe(0);
    } finally {
      await small.stop();
    }
  });
});

describe('tenancy', () => {
  it("answers 404 on every one of another organization's lists and leads", async () => {
    const list = await newList();
    const lead = (await agent.post(`/api/lists/${list.id}/leads`, { leads: [{ email: 'secret@acme.test' }] })).body.leads[0];
    const { agent: other } = await h.signup();
    const attempts = [
      other.get(`/api/lists/${list.id}`),
      other.patch(`/api/lists/${list.id}`, { name: 'mine' }),
      other.delete(`/api/lists/${list.id}`),
      other.get(`/api/lists/${list.id}/leads`),
      other.post(`/api/lists/${list.id}/leads`, { leads: [{ email: 'x@y.test' }] }),
      other.post(`/api/lists/${list.id}/leads/import`, csvForm('email\nx@y.test\n')),
      other.get(`/api/leads/${lead.id}`),
      other.patch(`/api/leads/${lead.id}`, { title: 'x' }),
      other.delete(`/api/leads/${lead.id}`),
    ];
    for (const res of await Promise.all(attempts)) expectError(res, 404, 'not_found');
    expect((await other.get('/api/lists')).body.total).toBe(0);
    expect((await agent.get(`/api/leads/${lead.id}`)).body.email).toBe('secret@acme.test');
  });

  it('requires a session on every list and lead route', async () => {
    const list = await newList();
    for (const res of await Promise.all([
      h.app.request('/api/lists'),
      h.app.request(`/api/lists/${list.id}`),
      h.app.request(`/api/lists/${list.id}/leads`),
    ])) {
      expect(res.status).toBe(401);
    }
  });
});
