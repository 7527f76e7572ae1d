import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, type AgentResponse, expectError } from '../support/agent.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { scrapeForm } from '../support/scrape.ts';

// The user's own input at fault: a clear 4xx naming what is wrong, and nothing half-stored.
let h: Harness;
let agent: Agent;
let organizationId: string;
let listId: string;
beforeAll(async () => {
  h = await startHarness({ env: { SCRAPE_MAX_ROWS: '20' } });
  ({ agent, organizationId } = await h.signup());
  listId = (await agent.post('/api/lists', { name: 'Imports' })).body.id;
});
afterAll(() => h.stop());

const leadCount = async () => (await h.sql('select count(*)::int as n from lead where list_id = ?', [listId]))[0].n as number;

const BROKEN: Array<[string, string | Uint8Array, string, number | undefined]> = [
  ['a quote never closed', 'email,name\na@x.test,Ann\nb@x.test,"Bob\n', 'unclosed_quote', undefined],
  ['a character after a closing quote', 'email,name\na@x.test,Ann\nb@x.test,"Bob"x\n', 'invalid_closing_quote', 3],
  ['Latin-1 text', Buffer.concat([Buffer.from('email,name\na@x.test,J'), Buffer.from([0xfc]), Buffer.from('rgen\n')]), 'invalid_encoding', 2],
  ['a 5 MB cell', `email,notes\na@x.test,${'n'.repeat(5 * 1024 * 1024)}\n`, 'record_too_large', undefined],
  ['100,000 columns', `email,${Array.from({ length: 100_000 }, (_, i) => `c${i}`).join(',')}\na@x.test\n`, 'too_many_columns', undefined],
];

describe('malformed CSV → 422 with the reason and the line, nothing stored', () => {
  it.each(BROKEN)('lead import: %s', async (_name, csv, reason, line) => {
    const form = scrapeForm(csv, { fileName: 'leads.csv' });
    const err = expectError(await agent.post(`/api/lists/${listId}/leads/import`, form), 422, 'unprocessable');
    expect(err.details.reason).toBe(reason);
    if (line !== undefined) expect(err.details.line).toBe(line);
    expect(await leadCount()).toBe(0);
  });

  it.each(BROKEN)('scrape upload: %s', async (_name, csv, reason) => {
    const before = (await h.sql('select count(*)::int as n from scrape_job where organization_id = ?', [organizationId]))[0].n;
    const body = typeof csv === 'string' ? csv.replace(/^email/, 'company') : csv;
    const err = expectError(await agent.post('/api/scrape/jobs', scrapeForm(body, { fields: { name: 'broken' } })), 422, 'unprocessable');
    expect(err.details.reason).toBe(reason);
    expect((await h.sql('select count(*)::int as n from scrape_job where organization_id = ?', [organizationId]))[0].n).toBe(before);
  });

  it('ragged rows import (short rows padded, extra cells ignored)', async () => {
    const res = await agent.post(`/api/lists/${listId}/leads/import`, scrapeForm('email,first_name,last_name\nragged1@x.test\nragged2@x.test,Ann,Lee,extra\n'));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ created: 2, skipped: 0 });
    await h.sql('delete from lead where list_id = ?', [listId]);
  });

  it('a lead import over SCRAPE_MAX_ROWS → 422 too_many_rows, nothing stored', async () => {
    const rows = Array.from({ length: 21 }, (_, i) => `over${i}@x.test`).join('\n');
    const err = expectError(await agent.post(`/api/lists/${listId}/leads/import`, scrapeForm(`email\n${rows}\n`)), 422, 'unprocessable');
    expect(err.details).toEqual({ reason: 'too_many_rows', maxRows: 20 });
    expect(await leadCount()).toBe(0);
  });
});

describe('the sample files in examples/', () => {
  it('import as leads and upload as scrape jobs of the input type each is for', async () => {
    const sample = (name: string) => readFileSync(path.join(import.meta.dirname, '../../examples', name));
    const list = (await agent.post('/api/lists', { name: 'Samples' })).body.id;
    const imported = await agent.post(`/api/lists/${list}/leads/import`, scrapeForm(sample('leads.csv'), { fileName: 'leads.csv' }));
    expect(imported.body).toMatchObject({ created: 2, skipped: 0 });
    for (const [file, inputType] of [['companies.csv', 'companies'], ['names.csv', 'names'], ['domains.csv', 'domains']]) {
      const res = await agent.post('/api/scrape/jobs', scrapeForm(sample(file!), { fileName: file, fields: { name: file! } }));
      expect(res.status, file).toBe(201);
      expect(res.body.job).toMatchObject({ inputType, totalItems: 2 });
    }
  });
});

describe('text PostgreSQL cannot store → 400 naming the field', () => {
  it('a NUL character in a JSON field, a query parameter or an upload field', async () => {
    const key = (await agent.post('/api/api-keys', { name: 'reader', scopes: ['leads:read'] })).body.key as string;
    const cases: Array<[Promise<AgentResponse>, string]> = [
      [agent.post('/api/lists', { name: 'a\u0000b' }), 'json.name'],
      [agent.post('/api/lists', { name: 'ok', description: 'x\u0000' }), 'json.description'],
      [agent.patch(`/api/lists/${listId}`, { name: '\u0000' }), 'json.name'],
      [agent.post(`/api/lists/${listId}/leads`, { leads: [{ email: 'a@x.test', firstName: 'A\u0000' }] }), 'json.leads.0.firstName'],
      [agent.post('/api/api-keys', { name: 'k\u0000', scopes: ['lists:read'] }), 'json.name'],
      [agent.get('/api/external/leads?email=a%00b@x.test', { 'x-api-key': key }), 'query.email'],
      [agent.post('/api/scrape/jobs', scrapeForm('company\nAcme\n', { fields: { name: 'x\u0000y' } })), 'form.name'],
    ];
    for (const [pending, path] of cases) {
      const err = expectError(await pending, 400, 'validation_error');
      expect(err.details).toEqual([expect.objectContaining({ path })]);
    }
    // Nothing of a refused request was stored.
    expect((await h.sql(`select count(*)::int as n from lead_list where organization_id = ? and (name in ('ok', 'a') or name like 'a%b')`, [organizationId]))[0].n).toBe(0);
  });
});

describe('a JSON body that is not UTF-8 → 400 invalid_encoding, on every JSON route', () => {
  it('refuses the body whole instead of storing U+FFFD, for session, key, public and idempotent routes', async () => {
    const leadsBefore = await leadCount();
    const key = (await agent.post('/api/api-keys', { name: 'writer', scopes: ['lists:write', 'leads:write'] })).body.key as string;
    // "Jürgen" in Latin-1: the 0xfc byte alone is no UTF-8 sequence.
    const latin1 = (text: string) => Buffer.from(text, 'latin1');
    const json = { 'content-type': 'application/json' };
    const cases: Array<Promise<AgentResponse>> = [
      agent.post('/api/lists', latin1('{"name":"Jürgen"}'), json),
      agent.patch(`/api/lists/${listId}`, latin1('{"name":"Jürgen"}'), json),
      agent.post(`/api/lists/${listId}/leads`, latin1('{"leads":[{"email":"j@x.test","firstName":"Jürgen"}]}'), json),
      agent.post(`/api/lists/${listId}/leads`, latin1('{"leads":[{"email":"j@x.test","firstName":"Jürgen"}]}'), { ...json, 'idempotency-key': 'latin-1' }),
      agent.post('/api/external/lists', latin1('{"name":"Jürgen"}'), { ...json, 'x-api-key': key }),
      new Agent(h.app).post('/api/auth/signup', latin1('{"email":"jürgen@x.test","password":"a long password","organizationName":"J"}'), json),
    ];
    for (const pending of cases) {
      const err = expectError(await pending, 400, 'validation_error');
      expect(err.details).toEqual([expect.objectContaining({ path: 'json', reason: 'invalid_encoding' })]);
    }
    expect((await h.sql(`select count(*)::int as n from lead_list where organization_id = ? and name like 'J%rgen'`, [organizationId]))[0].n).toBe(0);
    expect(await leadCount()).toBe(leadsBefore);
    // The same text as UTF-8 is fine.
    expect((await agent.post('/api/lists', Buffer.from('{"name":"Jürgen"}'), json)).status).toBe(201);
  });
});
