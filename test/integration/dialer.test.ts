import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../support/auth-cases.ts';
import { type Harness, startHarness } from '../support/harness.ts';

/**
 * The "done when" of the external API, written as the dialer integration would be: a process that only
 * knows the service's URL and an API key with `leads:read`, talking HTTP over loopback.
 */
let h: Harness;
let server: ServerType;
let baseUrl: string;
let key: string;
let inbound: { id: string };
let theirs: { listId: string; leadId: string };

beforeAll(async () => {
  h = await startHarness();
  server = serve({ fetch: h.app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // In the dashboard: a list of leads, and a key for the dialer that may only read leads.
  const { agent: admin } = await h.signup();
  inbound = (await admin.post('/api/lists', { name: 'Inbound' })).body;
  await admin.post(`/api/lists/${inbound.id}/leads`, {
    leads: [
      { firstName: 'Ann', lastName: 'Lee', company: 'Acme', phone: '+1 415-555-2671', email: 'ann@acme.test' },
      { firstName: 'Raj', lastName: 'Patel', company: 'Globex', phone: '+44 20 7946 0958' },
    ],
  });
  ({ key } = await createKey(admin, ['leads:read'], { name: 'Dialer' }));

  // Another organization, with a lead on the very same number.
  const { agent: rival } = await h.signup();
  const list = (await rival.post('/api/lists', { name: 'Rival list' })).body;
  const lead = (await rival.post(`/api/lists/${list.id}/leads`, { leads: [{ firstName: 'Zed', phone: '+14155552671' }] })).body.leads[0];
  theirs = { listId: list.id, leadId: lead.id };
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await h.stop();
});

// --- the dialer's own code -------------------------------------------------------------------------

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the dialer reads the fields it knows
async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'X-API-Key': key, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: res.status === 204 ? null : await res.json() };
}

/** Who is calling? The number arrives however the phone system formats it. */
async function whoIsCalling(callerId: string, country?: string) {
  const query = new URLSearchParams({ phone: callerId, ...(country ? { country } : {}) });
  const { status, body } = await call('GET', `/api/external/leads?${query}`);
  expect(status).toBe(200);
  return body.data.map((lead: { firstName: string; lastName: string; company: string }) => `${lead.firstName} ${lead.lastName} (${lead.company})`);
}

// ----------------------------------------------------------------------------------------------------

describe('a dialer with a leads:read key', () => {
  it('looks callers up by phone, whatever the format, and only in its own organization', async () => {
    expect(await whoIsCalling('+14155552671')).toEqual(['Ann Lee (Acme)']);
    expect(await whoIsCalling('+1 (415) 555-2671')).toEqual(['Ann Lee (Acme)']);
    expect(await whoIsCalling('14155552671')).toEqual(['Ann Lee (Acme)']);
    expect(await whoIsCalling('(415) 555-2671', 'US')).toEqual(['Ann Lee (Acme)']);
    expect(await whoIsCalling('0044 20 7946 0958')).toEqual(['Raj Patel (Globex)']);
    expect(await whoIsCalling('020 7946 0958', 'GB')).toEqual(['Raj Patel (Globex)']);
    expect(await whoIsCalling('+1 212 555 0100')).toEqual([]);
  });

  it('reads the leads of the lists it dials, and a lead by id', async () => {
    const page = await call('GET', `/api/external/lists/${inbound.id}/leads`);
    expect(page.status).toBe(200);
    expect(page.body.data.map((l: { firstName: string }) => l.firstName)).toEqual(['Ann', 'Raj']);
    const byList = await call('GET', `/api/external/leads?listId=${inbound.id}&limit=1`);
    expect(byList.body).toMatchObject({ total: 2, totalPages: 2 });
    const one = await call('GET', `/api/external/leads/${page.body.data[0].id}`);
    expect(one.body).toMatchObject({ firstName: 'Ann', phone: '+14155552671', listId: inbound.id });
  });

  it('is refused everything outside its scope with 403 naming the scope, and changes nothing', async () => {
    const [ann] = (await call('GET', `/api/external/lists/${inbound.id}/leads`)).body.data;
    const attempts: Array<[string, string, unknown, string]> = [
      ['GET', '/api/external/lists', undefined, 'lists:read'],
      ['GET', `/api/external/lists/${inbound.id}`, undefined, 'lists:read'],
      ['POST', '/api/external/lists', { name: 'Mine now' }, 'lists:write'],
      ['PATCH', `/api/external/lists/${inbound.id}`, { name: 'Renamed' }, 'lists:write'],
      ['DELETE', `/api/external/lists/${inbound.id}`, undefined, 'lists:write'],
      ['POST', `/api/external/lists/${inbound.id}/leads`, { leads: [{ phone: '+15550000000' }] }, 'leads:write'],
      ['PATCH', `/api/external/leads/${ann.id}`, { firstName: 'Changed' }, 'leads:write'],
      ['DELETE', `/api/external/leads/${ann.id}`, undefined, 'leads:write'],
    ];
    for (const [method, path, body, scope] of attempts) {
      const res = await call(method, path, body);
      expect({ method, path, status: res.status, code: res.body.error.code, requiredScope: res.body.error.details.requiredScope }).toEqual({
        method,
        path,
        status: 403,
        code: 'forbidden',
        requiredScope: scope,
      });
    }
    const after = await call('GET', `/api/external/lists/${inbound.id}/leads`);
    expect(after.body.data.map((l: { firstName: string }) => l.firstName)).toEqual(['Ann', 'Raj']);
  });

  it("gets 404 for another organization's lists and leads, as if they did not exist", async () => {
    for (const path of [
      `/api/external/lists/${theirs.listId}/leads`,
      `/api/external/leads/${theirs.leadId}`,
      `/api/external/leads?listId=${theirs.listId}`,
    ]) {
      const res = await call('GET', path);
      expect({ path, status: res.status, code: res.body.error.code }).toEqual({ path, status: 404, code: 'not_found' });
    }
  });

  it('stops working the moment the key is revoked or expires', async () => {
    const { agent: admin } = await h.signup();
    const [revoked, expiring] = [await createKey(admin, ['leads:read']), await createKey(admin, ['leads:read'])];
    const lookup = (k: string) => fetch(`${baseUrl}/api/external/leads?phone=%2B14155552671`, { headers: { 'X-API-Key': k } });
    expect((await lookup(revoked.key)).status).toBe(200);
    expect((await lookup(expiring.key)).status).toBe(200);
    expect((await admin.delete(`/api/api-keys/${revoked.id}`)).status).toBe(204);
    await h.sql(`update api_key set expires_at = now() - interval '1 second' where id = ?`, [expiring.id]);
    expect((await lookup(revoked.key)).status).toBe(401);
    expect((await lookup(expiring.key)).status).toBe(401);
    expect((await lookup(key)).status).toBe(200);
    const typo = key.slice(0, -1) + (key.endsWith('x') ? 'y' : 'x');
    expect((await lookup(typo)).status).toBe(401);
    expect((await fetch(`${baseUrl}/api/external/leads`)).status).toBe(401);
  });
});
