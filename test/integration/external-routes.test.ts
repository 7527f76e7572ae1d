import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, expectError } from '../support/agent.ts';
import { createKey } from '../support/auth-cases.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
let session: Agent;
let api: (method: string, path: string, body?: unknown) => ReturnType<Agent['send']>;
beforeAll(async () => {
  h = await startHarness();
  ({ agent: session } = await h.signup());
  const { key } = await createKey(session, ['lists:read', 'lists:write', 'leads:read', 'leads:write']);
  const client = new Agent(h.app);
  api = (method, path, body) => client.send(method, path, { body, headers: { 'x-api-key': key } });
});
afterAll(() => h.stop());

describe('external lists', () => {
  it('creates, reads, pages newest first, renames and deletes lists of the key’s organization', async () => {
    const a = await api('POST', '/api/external/lists', { name: 'A', description: 'first' });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ name: 'A', description: 'first', leadCount: 0 });
    const b = (await api('POST', '/api/external/lists', { name: 'B' })).body;

    const page = await api('GET', '/api/external/lists?limit=1');
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ page: 1, limit: 1, total: 2, totalPages: 2 });
    expect(page.body.data[0].id).toBe(b.id);
    expect((await api('GET', `/api/external/lists/${a.body.id}`)).body).toEqual(a.body);
    // The dashboard sees what the integration made, and the other way round.
    expect((await session.get(`/api/lists/${b.id}`)).body.name).toBe('B');

    const renamed = await api('PATCH', `/api/external/lists/${a.body.id}`, { name: 'A2' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: a.body.id, name: 'A2', description: 'first' });

    expect((await api('DELETE', `/api/external/lists/${a.body.id}`)).status).toBe(204);
    expectError(await api('GET', `/api/external/lists/${a.body.id}`), 404, 'not_found');
  });

  it('validates bodies, ids and pagination like the session routes', async () => {
    expectError(await api('POST', '/api/external/lists', { name: '' }), 400, 'validation_error');
    expectError(await api('GET', '/api/external/lists/not-a-uuid'), 400, 'validation_error');
    expectError(await api('GET', '/api/external/lists?limit=101'), 400, 'validation_error');
  });
});

describe('external leads', () => {
  it('adds leads with source "api", reads them by list and by id, updates and deletes them', async () => {
    const list = (await api('POST', '/api/external/lists', { name: 'Calls' })).body;
    const added = await api('POST', `/api/external/lists/${list.id}/leads`, {
      leads: [
        { firstName: 'Ann', email: 'Ann@ACME.test', phone: '+1 (415) 555-2671' },
        { firstName: 'Bob', email: 'bob@acme.test' },
      ],
    });
    expect(added.status).toBe(201);
    expect(added.body.created).toBe(2);
    expect(added.body.leads[0]).toMatchObject({ listId: list.id, firstName: 'Ann', email: 'Ann@acme.test', phone: '+14155552671', source: 'api' });
    const [ann, bob] = added.body.leads;

    const inList = await api('GET', `/api/external/lists/${list.id}/leads`);
    expect(inList.body).toMatchObject({ total: 2, totalPages: 1 });
    expect(inList.body.data.map((l: { id: string }) => l.id)).toEqual([ann.id, bob.id]);
    expect((await api('GET', `/api/external/lists/${list.id}`)).body.leadCount).toBe(2);

    expect((await api('GET', `/api/external/leads/${ann.id}`)).body).toEqual(ann);
    const patched = await api('PATCH', `/api/external/leads/${bob.id}`, { title: 'CTO', phone: '020 7946 0958' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ title: 'CTO', phone: '020 7946 0958', email: 'bob@acme.test' });
    expect((await api('DELETE', `/api/external/leads/${bob.id}`)).status).toBe(204);
    expectError(await api('GET', `/api/external/leads/${bob.id}`), 404, 'not_found');

    expectError(await api('POST', `/api/external/lists/${list.id}/leads`, { leads: [] }), 400, 'validation_error');
  });

  it('filters leads by list, email and phone across the organization', async () => {
    const one = (await api('POST', '/api/external/lists', { name: 'One' })).body;
    const two = (await api('POST', '/api/external/lists', { name: 'Two' })).body;
    const a = (await api('POST', `/api/external/lists/${one.id}/leads`, { leads: [{ email: 'filter-a@acme.test', phone: '+442079460958' }] })).body.leads[0];
    const b = (await api('POST', `/api/external/lists/${two.id}/leads`, { leads: [{ email: 'filter-b@acme.test', phone: '+442079460958' }] })).body.leads[0];

    const ids = async (query: string) => {
      const res = await api('GET', `/api/external/leads?${query}`);
      expect(res.status).toBe(200);
      return res.body.data.map((l: { id: string }) => l.id);
    };
    expect(await ids(`listId=${one.id}`)).toEqual([a.id]);
    expect(await ids('email=filter-b@ACME.test')).toEqual([b.id]);
    expect(await ids('phone=%2B44%2020%207946%200958')).toEqual([a.id, b.id]);
    expect(await ids(`phone=%2B442079460958&listId=${two.id}`)).toEqual([b.id]);
    expect(await ids('email=nobody@acme.test')).toEqual([]);
    expectError(await api('GET', '/api/external/leads?listId=nope'), 400, 'validation_error');
    expectError(await api('GET', '/api/external/leads?country=XX&phone=1'), 400, 'validation_error');
  });

  it('finds a lead by phone whatever format the caller sends', async () => {
    const list = (await api('POST', '/api/external/lists', { name: 'Phones' })).body;
    const [lead] = (await api('POST', `/api/external/lists/${list.id}/leads`, { leads: [{ firstName: 'Cal', phone: '(212) 555-0100 ' }] })).body.leads;
    // Stored as given (no country to read it by); the lead gets its E.164 form once a person fixes it.
    expect(lead.phone).toBe('(212) 555-0100');
    const [e164] = (await api('POST', `/api/external/lists/${list.id}/leads`, { leads: [{ firstName: 'Dee', phone: '+1 212-555-0199' }] })).body.leads;
    expect(e164.phone).toBe('+12125550199');

    const lookup = async (phone: string, country?: string) => {
      const query = new URLSearchParams({ phone, ...(country ? { country } : {}) });
      const res = await api('GET', `/api/external/leads?${query}`);
      expect(res.status).toBe(200);
      return res.body.data.map((l: { firstName: string }) => l.firstName);
    };
    for (const phone of ['+12125550199', '+1 (212) 555-0199', '+1.212.555.0199', '1 212 555 0199', '12125550199', '001 212 555 0199', 'tel:+1-212-555-0199']) {
      expect(await lookup(phone), phone).toEqual(['Dee']);
    }
    expect(await lookup('(212) 555-0199', 'us')).toEqual(['Dee']);
    expect(await lookup('212.555.0199', 'US')).toEqual(['Dee']);
    expect(await lookup('(212) 555-0100')).toEqual(['Cal']);
    expect(await lookup('+1 212 555 0101')).toEqual([]);
  });
});
