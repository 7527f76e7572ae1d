import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, expectError } from '../support/agent.ts';
import { type AuthCaseFixture, createAuthCaseFixture, createKey, describeExternalAuthCases, EXTERNAL_ROUTES } from '../support/auth-cases.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
let fixture: AuthCaseFixture;
beforeAll(async () => {
  h = await startHarness();
  fixture = await createAuthCaseFixture(h);
});
afterAll(() => h.stop());

describe('external routes: authentication, scopes and tenancy', () => {
  it('the generated cases cover every /api/external route of the OpenAPI document', async () => {
    const doc = (await new Agent(h.app).get('/openapi.json')).body;
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .filter(([path]) => path.startsWith('/api/external/'))
      .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual(EXTERNAL_ROUTES.map((r) => r.name).sort());
  });

  it('documents the apiKey scheme and the accepted scopes on every external route', async () => {
    const doc = (await new Agent(h.app).get('/openapi.json')).body;
    for (const route of EXTERNAL_ROUTES) {
      const [method = '', path = ''] = route.name.split(' ');
      const op = doc.paths[path][method.toLowerCase()];
      expect(op.security).toEqual(route.scopes.map((s) => ({ apiKey: [s] })));
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '403', '429']));
    }
    expect(doc.components.securitySchemes.apiKey).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
  });

  it('does not accept a session cookie on external routes, nor an API key on session routes', async () => {
    const { agent: session } = await h.signup();
    const { key } = await createKey(session, ['lists:read', 'lists:write', 'leads:read', 'leads:write']);
    expectError(await session.get('/api/external/lists'), 401, 'unauthorized');
    expectError(await session.post('/api/external/lists', { name: 'x' }), 401, 'unauthorized');
    const keyOnly = new Agent(h.app);
    expectError(await keyOnly.get('/api/lists', { 'x-api-key': key }), 401, 'unauthorized');
    expectError(await keyOnly.get('/api/api-keys', { 'x-api-key': key }), 401, 'unauthorized');
    expectError(await keyOnly.get('/api/auth/me', { 'x-api-key': key }), 401, 'unauthorized');
    expect((await keyOnly.get('/api/external/lists', { 'x-api-key': key })).status).toBe(200);
  });
});

describeExternalAuthCases(() => fixture);
