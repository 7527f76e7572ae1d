/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies are asserted field by field */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, type AgentResponse, expectError } from '../support/agent.ts';
import { createKey } from '../support/auth-cases.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
let agent: Agent;
beforeAll(async () => {
  h = await startHarness();
  ({ agent } = await h.signup());
});
afterAll(() => h.stop());

const csvForm = (csv: string, fields: Record<string, string> = {}) => {
  const form = new FormData();
  // Fields go before the file: the file is read as it arrives.
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'leads.csv');
  return form;
};

async function newList(who: Agent = agent) {
  const res = await who.post('/api/lists', { name: 'Dedupe' });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const leadsOf = async (listId: string) => (await agent.get(`/api/lists/${listId}/leads?limit=100`)).body.data as any[];
const created = (res: AgentResponse) => {
  expect(res.status).toBe(201);
  return res.body;
};

describe('POST /api/lists/:listId/leads skips duplicates (CONTRACT §15)', () => {
  it('skips a lead whose email (any case) or profile URL the list holds, or an earlier lead of the request holds', async () => {
    const listId = await newList();
    created(await agent.post(`/api/lists/${listId}/leads`, { leads: [{ email: 'Ann.Lee@Acme.test' }, { networkUrl: 'https://www.linkedin.com/in/bob-ray' }] }));
    const res = created(
      await agent.post(`/api/lists/${listId}/leads`, {
        leads: [
          { email: 'ANN.LEE@acme.test', firstName: 'Ann' }, // 1: the list's, by email in another case
          { networkUrl: 'http://linkedin.com/in/bob-ray/?x=1', email: 'bob@acme.test' }, // 2: the list's, by normalized URL
          { email: 'cy@acme.test' }, // 3: new
          { email: 'CY@ACME.TEST' }, // 4: the request's lead 3
          { networkUrl: 'https://www.linkedin.com/in/dee', firstName: 'Dee' }, // 5: new
          { networkUrl: 'https://www.linkedin.com/in/dee' }, // 6: the request's lead 5
          { firstName: 'No keys' }, // 7: nothing to match on: new
          { firstName: 'No keys' }, // 8: new as well
        ],
      }),
    );
    expect(res.created).toBe(4);
    expect(res.leads.map((l: any) => l.email ?? l.firstName)).toEqual(['cy@acme.test', 'Dee', 'No keys', 'No keys']);
    expect(res.duplicates).toEqual({ count: 4, rows: [1, 2, 4, 6] });
    const stored = await leadsOf(listId);
    expect(stored).toHaveLength(6);
    // Skipped: the list's leads kept as they were.
    expect(stored[0]).toMatchObject({ email: 'Ann.Lee@acme.test', firstName: null });
    expect(stored[1]).toMatchObject({ email: null });
  });

  it('answers duplicates with none found, and the same lead in another list is no duplicate', async () => {
    const first = await newList();
    const second = await newList();
    const one = created(await agent.post(`/api/lists/${first}/leads`, { leads: [{ email: 'same@acme.test' }] }));
    expect(one.duplicates).toEqual({ count: 0, rows: [] });
    const other = created(await agent.post(`/api/lists/${second}/leads`, { leads: [{ email: 'same@acme.test' }] }));
    expect(other).toMatchObject({ created: 1, duplicates: { count: 0, rows: [] } });
  });

  it('onDuplicate "update" fills the existing lead’s empty fields only, the earliest duplicate first', async () => {
    const listId = await newList();
    created(await agent.post(`/api/lists/${listId}/leads`, { leads: [{ email: 'ann@acme.test', firstName: 'Ann', title: null }] }));
    const res = created(
      await agent.post(`/api/lists/${listId}/leads`, {
        onDuplicate: 'update',
        leads: [
          { email: 'ANN@acme.test', firstName: 'Annie', title: 'CTO', phone: '+1 415 555 0100' },
          { email: 'ann@acme.test', title: 'CEO', company: 'Acme' },
          { email: 'new@acme.test' },
          { email: 'new@acme.test', lastName: 'Newton' },
        ],
      }),
    );
    expect(res).toMatchObject({ created: 1, duplicates: { count: 3, rows: [1, 2, 4] } });
    const [ann, fresh] = await leadsOf(listId);
    expect(ann).toMatchObject({ email: 'ann@acme.test', firstName: 'Ann', title: 'CTO', company: 'Acme', phone: '+14155550100' });
    expect(fresh).toMatchObject({ email: 'new@acme.test', lastName: 'Newton' });
    expect(res.leads[0]).toMatchObject({ email: 'new@acme.test', lastName: 'Newton' });
    expectError(await agent.post(`/api/lists/${listId}/leads`, { onDuplicate: 'merge', leads: [{ email: 'x@y.test' }] }), 400, 'validation_error');
  });

  it('dedupes on the external route too', async () => {
    const { key } = await createKey(agent, ['leads:write']);
    const listId = await newList();
    created(await agent.post(`/api/lists/${listId}/leads`, { leads: [{ email: 'ext@acme.test' }] }));
    const integration = new Agent(h.app);
    const res = await integration.post(`/api/external/lists/${listId}/leads`, { leads: [{ email: 'EXT@acme.test' }, { email: 'other@acme.test' }] }, { 'x-api-key': key });
    expect(created(res)).toMatchObject({ created: 1, duplicates: { count: 1, rows: [1] } });
    expect(res.body.leads[0].source).toBe('api');
  });
});

describe('POST /api/lists/:listId/leads/import skips duplicates (CONTRACT §15)', () => {
  const file = 'email,first_name,linkedin_url\r\nann@acme.test,Ann,\r\nbob@acme.test,,https://www.linkedin.com/in/bob\r\nANN@acme.test,Annie,\r\n';

  it('importing the same file twice creates its leads once, reporting the data rows it skipped', async () => {
    const listId = await newList();
    const first = created(await agent.post(`/api/lists/${listId}/leads/import`, csvForm(file)));
    // Data row 3 repeats row 1's address in another case.
    expect(first).toMatchObject({ created: 2, skipped: 0, duplicates: { count: 1, rows: [3] } });
    const again = created(await agent.post(`/api/lists/${listId}/leads/import`, csvForm(file)));
    expect(again).toMatchObject({ created: 0, skipped: 0, errors: [], duplicates: { count: 3, rows: [1, 2, 3] } });
    expect(await leadsOf(listId)).toHaveLength(2);
  });

  it('finds duplicates across the importer’s batches of 1000 rows and reports rows past the first batch', async () => {
    const listId = await newList();
    const rows = Array.from({ length: 1500 }, (_, i) => `lead${i % 1200}@acme.test`);
    const res = created(await agent.post(`/api/lists/${listId}/leads/import`, csvForm(`email\n${rows.join('\n')}\n`)));
    expect(res.created).toBe(1200);
    expect(res.duplicates.count).toBe(300);
    expect(res.duplicates.rows[0]).toBe(1201);
    expect(res.duplicates.rows.at(-1)).toBe(1500);
  });

  it('an onDuplicate field before the file fills the existing leads’ empty fields', async () => {
    const listId = await newList();
    created(await agent.post(`/api/lists/${listId}/leads`, { leads: [{ email: 'bob@acme.test' }] }));
    const res = created(await agent.post(`/api/lists/${listId}/leads/import`, csvForm(file, { onDuplicate: 'update' })));
    expect(res).toMatchObject({ created: 1, duplicates: { count: 2, rows: [2, 3] } });
    const [bob, ann] = await leadsOf(listId);
    expect(bob).toMatchObject({ email: 'bob@acme.test', networkUrl: 'https://www.linkedin.com/in/bob', source: 'manual' });
    // Row 3 filled row 1's lead before it was stored: an empty field only, so the first name stays Ann's.
    expect(ann).toMatchObject({ email: 'ann@acme.test', firstName: 'Ann', source: 'import' });

    const bad = expectError(await agent.post(`/api/lists/${listId}/leads/import`, csvForm(file, { onDuplicate: 'nope' })), 400, 'validation_error');
    expect(bad.details[0].path).toBe('form.onDuplicate');
    expect(await leadsOf(listId)).toHaveLength(2);
  });
});

describe('duplicate checks on a large list', () => {
  it('look the batch up through the (list, email key) and (list, profile URL) indexes', async () => {
    const { organizationId, agent: big } = await h.signup();
    const listId = await newList(big);
    await h.sql(
      `insert into lead (id, organization_id, list_id, email, network_url, source, created_at, updated_at)
       select gen_random_uuid(), ?, ?, 'p' || n || '@big.test', 'https://www.linkedin.com/in/p' || n, 'import', now(), now()
         from generate_series(1, 200000) as n`,
      [organizationId, listId],
    );
    await h.sql('analyze lead');
    const plan = (
      await h.sql(
        `explain select id, email_key, network_url from lead
          where list_id = ? and (email_key = any('{p5@big.test,p6@big.test}'::text[]) or network_url = any('{https://www.linkedin.com/in/p7}'::text[]))`,
        [listId],
      )
    )
      .map((row: any) => row['QUERY PLAN'])
      .join('\n');
    expect(plan).toContain('lead_list_id_email_key_index');
    expect(plan).toContain('lead_list_id_network_url_index');
    expect(plan).not.toMatch(/Seq Scan/);

    const leads = Array.from({ length: 1000 }, (_, i) => (i % 2 ? { email: `P${i}@big.test` } : { networkUrl: `https://www.linkedin.com/in/new${i}` }));
    const started = performance.now();
    const res = created(await big.post(`/api/lists/${listId}/leads`, { leads }));
    const elapsed = performance.now() - started;
    expect(res.created).toBe(500);
    expect(res.duplicates.count).toBe(500);
    console.log(`add 1000 leads to a 200,000-lead list (500 duplicates): ${elapsed.toFixed(0)} ms`);
    expect(elapsed).toBeLessThan(5000);
  });
});
