/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies are asserted field by field */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, expectError } from '../support/agent.ts';
import { type AuthCaseFixture, createAuthCaseFixture, createKey, describeExternalAuthCases, type ExternalRoute } from '../support/auth-cases.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
let fixture: AuthCaseFixture;
beforeAll(async () => {
  h = await startHarness();
  fixture = await createAuthCaseFixture(h, ROUTES);
});
afterAll(() => h.stop());

const ROUTES: ExternalRoute[] = [
  {
    name: 'GET /api/lists/{listId}/leads/export',
    path: (r) => `/api/lists/${r.listId}/leads/export`,
    scopes: ['lists:read'],
    otherOrganization: { status: 404 },
    sessionOrKey: true,
  },
];

const HEADER =
  'id,list_id,first_name,last_name,title,company,company_domain,email,network_url,work_email,personal_email,phone,email_status,email_verified_at,source,enriched_at,created_at,updated_at';
const LEADS = 2500;

/** A list of `LEADS` leads made by SQL; every tenth one `Valid`. */
async function bigList(agent: Agent, organizationId: string) {
  const list = (await agent.post('/api/lists', { name: 'Q4 "hot" leads' })).body;
  await h.sql(
    `insert into lead (id, organization_id, list_id, first_name, email, phone, title, email_status, source, created_at, updated_at)
     select gen_random_uuid(), ?, ?, 'Lead ' || n, 'lead' || n || '@acme.test', '+1 415 555 ' || lpad(n::text, 4, '0'),
            case when n = 7 then '=HYPERLINK("http://x.test","click")' else 'VP Sales' end,
            case when n % 10 = 0 then 'Valid' end, 'import', now(), now()
       from generate_series(1, ?) as n`,
    [organizationId, list.id, LEADS],
  );
  return list.id as string;
}

const rowsOf = (text: string) => parse(text, { relax_column_count: false }) as string[][];

describe('GET /api/lists/:listId/leads/export (CONTRACT §15)', () => {
  it('streams every lead as CSV, oldest first, across page boundaries, named after the list', async () => {
    const { agent, organizationId } = await h.signup();
    const listId = await bigList(agent, organizationId);
    const res = await agent.get(`/api/lists/${listId}/leads/export`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="Q4 _hot_ leads.csv"; filename*=UTF-8''Q4%20%22hot%22%20leads.csv`);
    expect(res.text.split('\r\n')[0]).toBe(HEADER);
    const [header, ...rows] = rowsOf(res.text);
    expect(header!.join(',')).toBe(HEADER);
    const ids = (await h.sql(`select id from lead where list_id = ? order by id`, [listId])).map((r: any) => r.id);
    expect(rows.map((r) => r[0])).toEqual(ids);
    const seven = rows.find((r) => r[2] === 'Lead 7')!;
    // Phones stay as they are; a formula is defused.
    expect(seven).toEqual([
      expect.any(String),
      listId,
      'Lead 7',
      '',
      `'=HYPERLINK("http://x.test","click")`,
      '',
      '',
      'lead7@acme.test',
      '',
      '',
      '',
      '+1 415 555 0007',
      '',
      '',
      'import',
      '',
      expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      expect.any(String),
    ]);
  });

  it('applies the leads route’s filters', async () => {
    const { agent, organizationId } = await h.signup();
    const listId = await bigList(agent, organizationId);
    const valid = rowsOf((await agent.get(`/api/lists/${listId}/leads/export?emailStatus=Valid`)).text).slice(1);
    expect(valid).toHaveLength(LEADS / 10);
    expect(valid.every((r) => r[12] === 'Valid')).toBe(true);
    const searched = rowsOf((await agent.get(`/api/lists/${listId}/leads/export?search=lead250@`)).text).slice(1);
    expect(searched.map((r) => r[7])).toEqual(['lead250@acme.test']);
    expectError(await agent.get(`/api/lists/${listId}/leads/export?emailStatus=Great`), 400, 'validation_error');
    const empty = await agent.get(`/api/lists/${(await agent.post('/api/lists', { name: 'Empty' })).body.id}/leads/export`);
    expect(empty.text).toBe(`${HEADER}\r\n`);
  });

  it('reads the pages as the client reads the response: a lead added mid-download is in the later page', async () => {
    const { agent, organizationId } = await h.signup();
    const listId = await bigList(agent, organizationId);
    const res = await h.app.request(`/api/lists/${listId}/leads/export`, { headers: { cookie: `sid=${agent.cookies.get('sid')}` } });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    // The header and the first page of 1000.
    while (text.split('\r\n').length - 1 < 1001) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the export ended early');
      text += decoder.decode(value, { stream: true });
    }
    await h.sql(
      `insert into lead (id, organization_id, list_id, email, source, created_at, updated_at) values ('ffffffff-ffff-7fff-bfff-ffffffffffff', ?, ?, 'late@acme.test', 'manual', now(), now())`,
      [organizationId, listId],
    );
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    const rows = rowsOf(text).slice(1);
    expect(rows).toHaveLength(LEADS + 1);
    expect(rows.at(-1)![7]).toBe('late@acme.test');
    expect(new Set(rows.map((r) => r[0])).size).toBe(LEADS + 1);
  });

  it('exports a 100,000-lead list in pages, the heap staying flat', { timeout: 120_000 }, async () => {
    const { agent, organizationId } = await h.signup();
    const listId = (await agent.post('/api/lists', { name: 'Huge' })).body.id;
    await h.sql(
      `insert into lead (id, organization_id, list_id, first_name, last_name, company, email, phone, source, created_at, updated_at)
       select gen_random_uuid(), ?, ?, 'First' || n, 'Last' || n, 'Company ' || n, 'lead' || n || '@huge.test', '+1415555' || lpad(n::text, 4, '0'), 'import', now(), now()
         from generate_series(1, 100000) as n`,
      [organizationId, listId],
    );
    // What the heap holds after a full collection, half-way through the download: only what is still reachable.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const before = process.memoryUsage().heapUsed;
    let halfway = 0;
    const started = performance.now();
    const res = await h.app.request(`/api/lists/${listId}/leads/export`, { headers: { cookie: `sid=${agent.cookies.get('sid')}` } });
    let lines = 0;
    let bytes = 0;
    for await (const chunk of res.body! as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (const byte of chunk) if (byte === 10) lines++;
      if (halfway === 0 && lines > 50_000) {
        gc();
        halfway = process.memoryUsage().heapUsed - before;
      }
    }
    const elapsed = performance.now() - started;
    expect(lines).toBe(100_001);
    console.log(`export of 100,000 leads: ${(bytes / 1e6).toFixed(1)} MB in ${elapsed.toFixed(0)} ms; heap held half-way ${(halfway / 1e6).toFixed(1)} MB`);
    // The file is over 15 MB, its rows as objects several times that; what a page or two of 1000 hold is a fraction.
    expect(halfway).toBeLessThan(bytes / 4);
  });

  it('takes an API key with lists:read', async () => {
    const { agent } = await h.signup();
    const listId = (await agent.post('/api/lists', { name: 'Keyed' })).body.id;
    await agent.post(`/api/lists/${listId}/leads`, { leads: [{ email: 'a@acme.test' }, { email: 'b@acme.test' }] });
    const { key } = await createKey(agent, ['lists:read']);
    const res = await new Agent(h.app).get(`/api/lists/${listId}/leads/export`, { 'x-api-key': key });
    expect(res.status).toBe(200);
    expect(rowsOf(res.text).slice(1).map((r) => r[7])).toEqual(['a@acme.test', 'b@acme.test']);
  });

  it('is documented for a session or a key with lists:read', async () => {
    const doc = (await new Agent(h.app).get('/openapi.json')).body;
    const op = doc.paths['/api/lists/{listId}/leads/export'].get;
    expect(op.security).toEqual([{ session: [] }, { apiKey: ['lists:read'] }]);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404']));
  });
});

describeExternalAuthCases(() => fixture, ROUTES);
