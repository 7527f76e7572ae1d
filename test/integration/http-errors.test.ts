import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agent, expectError } from '../support/agent.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { keepAliveClient, requestBytes } from '../support/raw-http.ts';
import { serveApp } from '../support/served-app.ts';

let h: Harness;
let agent: Agent;
beforeAll(async () => {
  h = await startHarness({ env: { BODY_LIMIT_BYTES: '4096' } });
  ({ agent } = await h.signup());
});
afterAll(() => h.stop());

describe('error shape', () => {
  it('malformed JSON → 400 validation_error', async () => {
    expectError(await agent.post('/api/lists', '{"name": ', { 'content-type': 'application/json' }), 400, 'validation_error');
  });

  it('wrong types → 400 with the offending path', async () => {
    const err = expectError(await agent.post('/api/lists', { name: 42 }), 400, 'validation_error');
    expect(err.details).toEqual([{ path: 'json.name', message: expect.any(String) }]);
  });

  it('unknown route → 404 not_found', async () => {
    expectError(await agent.get('/api/nothing-here'), 404, 'not_found');
  });

  it('body over the limit → 413 payload_too_large', async () => {
    expectError(await agent.post('/api/lists', { name: 'x', description: 'y'.repeat(10_000) }), 413, 'payload_too_large');
  });

  it('a body over the limit on a keep-alive connection: the 413 says Connection: close, the next request is answered', async () => {
    const served = await serveApp(h);
    const client = keepAliveClient(served.url);
    try {
      const headers = { cookie: [...agent.cookies].map(([k, v]) => `${k}=${v}`).join('; '), origin: 'http://app.test', 'content-type': 'application/json' };
      const big = Buffer.from(JSON.stringify({ name: 'x', description: 'y'.repeat(2 * 1024 * 1024) }));
      const refused = await client.request(requestBytes('POST', '/api/lists', headers, big, 'keep-alive'));
      expect(refused?.status).toBe(413);
      // The rest of the body is never read, so the socket cannot carry another request: the refusal says so.
      expect(refused?.headers.connection).toBe('close');
      const next = await client.request(requestBytes('POST', '/api/lists', headers, Buffer.from('{"name":"after 413"}'), 'keep-alive'));
      expect(next?.status).toBe(201);
      expect(next?.headers.connection).toBe('keep-alive');
      // A request within the limit keeps its connection.
      const third = await client.request(requestBytes('GET', '/api/lists', { cookie: headers.cookie }, undefined, 'keep-alive'));
      expect(third?.status).toBe(200);
      expect(client.connections).toBe(2);
    } finally {
      client.close();
      await served.close();
    }
  });

  it('bad UUID → 400 validation_error', async () => {
    const err = expectError(await agent.get('/api/lists/not-a-uuid'), 400, 'validation_error');
    expect(err.details[0].path).toBe('param.listId');
  });

  it('a body in another format → 415', async () => {
    expectError(await agent.post('/api/lists', 'name=x', { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
  });

  it('echoes a well-formed X-Request-Id and replaces a malformed one', async () => {
    expect((await agent.get('/api/lists', { 'x-request-id': 'abc-123' })).headers.get('x-request-id')).toBe('abc-123');
    const replaced = (await agent.get('/api/lists', { 'x-request-id': 'bad id!' })).headers.get('x-request-id');
    expect(replaced).toMatch(/^[0-9a-f-]{36}$/);
    expect((await agent.get('/api/nothing')).headers.get('x-request-id')).toBeTruthy();
  });
});

describe('health and docs', () => {
  it('/healthz and /readyz answer 200 with PostgreSQL and Temporal up', async () => {
    expect((await h.app.request('/healthz')).status).toBe(200);
    const ready = await h.app.request('/readyz');
    expect(ready.status).toBe(200);
    // No worker in this process: the SMTP environment is not known here.
    expect(await ready.json()).toEqual({ status: 'ok', database: 'ok', temporal: 'ok', smtp: 'unknown', dns: 'unknown', smtpEgressesBlocked: [], egress: [] });
  });

  it('/readyz answers 503 when the database is unreachable', async () => {
    const down = await startHarness({ env: { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' } });
    try {
      const res = await down.app.request('/readyz');
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ database: 'down', temporal: 'ok' });
      expectError(
        await (async () => {
          const r = await down.app.request('/api/auth/login', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ email: 'a@b.test', password: 'whatever-password' }),
          });
          return { status: r.status, headers: r.headers, body: await r.json(), text: '' };
        })(),
        503,
        'unavailable',
      );
    } finally {
      await down.stop();
    }
  });

  it('/openapi.json documents every route the app serves under /api (and the probes): none mounted beside it', async () => {
    const doc = (await (await h.app.request('/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
    const documented = new Set(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)));
    // Middleware shows up as ALL; a route's validators and handler as several entries of one METHOD path.
    const served = new Set(
      h.app.routes
        .filter((r) => r.method !== 'ALL' && (r.path.startsWith('/api/') || r.path === '/healthz' || r.path === '/readyz'))
        .map((r) => `${r.method} ${r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`),
    );
    expect(served.size).toBeGreaterThan(70);
    expect([...served].filter((route) => !documented.has(route))).toEqual([]);
    expect([...documented].filter((route) => !served.has(route))).toEqual([]);
  });

  it('/openapi.json lists full /api paths generated from the route schemas, and /docs renders it', async () => {
    const doc = (await (await h.app.request('/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/auth/signup', '/api/lists', '/api/lists/{listId}/leads/import', '/api/leads/{leadId}']),
    );
    const docs = await h.app.request('/docs');
    expect(docs.status).toBe(200);
    const page = await docs.text();
    expect(page).toContain('href="/openapi.json"');
    // Every asset the page loads is served here, none from another host.
    const sources = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources.filter((s) => /^(https?:)?\/\//.test(s))).toEqual([]);
    for (const asset of sources.filter((s) => s.startsWith('/docs/assets/'))) {
      const res = await h.app.request(asset);
      expect(res.status, asset).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
    expect((await h.app.request('/docs/assets/..%2Fpackage.json')).status).toBe(404);
  });
});
