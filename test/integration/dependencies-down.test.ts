import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { Agent, type AgentResponse, expectError } from '../support/agent.ts';
import { createKey } from '../support/auth-cases.ts';
import { eventually } from '../support/eventually.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { scrapeForm } from '../support/scrape.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';

// PostgreSQL and Temporal reached through proxies the test can take down and bring back. A route that needs
// a missing dependency answers 503 `unavailable` with Retry-After at once, and works again once it is back.
const database = new URL(inject('databaseUrl'));
const [temporalHost = '127.0.0.1', temporalPort = '7233'] = inject('temporalAddress').split(':');
const pgProxy = new TcpProxy({ host: database.hostname, port: Number(database.port || 5432) });
const temporalProxy = new TcpProxy({ host: temporalHost, port: Number(temporalPort) });

let h: Harness;
let agent: Agent;
let listId: string;
beforeAll(async () => {
  await pgProxy.up();
  await temporalProxy.up();
  const proxied = new URL(database);
  proxied.host = pgProxy.address;
  h = await startHarness({ env: { DATABASE_URL: proxied.toString(), TEMPORAL_ADDRESS: temporalProxy.address } });
  ({ agent } = await h.signup({ credits: 100 }));
  listId = (await agent.post('/api/lists', { name: 'Down' })).body.id;
  await agent.post(`/api/lists/${listId}/leads`, { leads: [{ email: 'a@acme.test', networkUrl: 'https://www.linkedin.com/in/jane-doe' }] });
});
afterAll(async () => {
  await h?.stop();
  await pgProxy.down();
  await temporalProxy.down();
});

/** Generous: a hang shows as this failure rather than as a test timeout. */
async function promptly(pending: Promise<AgentResponse>, withinMs = 10_000): Promise<AgentResponse> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${withinMs} ms`)), withinMs)));
  try {
    return await Promise.race([pending, hung]);
  } finally {
    clearTimeout(timer);
  }
}

function expectUnavailable(res: AgentResponse) {
  expectError(res, 503, 'unavailable');
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
}

/** The first answer with `status` once the dependency is back. */
const answering = (request: () => Promise<AgentResponse>, status: number) =>
  eventually(request, (res) => res.status === status, { what: `an answer ${status}`, timeoutMs: 20_000, intervalMs: 250 });

describe('Temporal down', () => {
  it('every route that starts, signals, updates or runs a workflow answers 503 at once, leaving no job behind', async () => {
    // A job awaiting a decision and a scrape job to pause, made while Temporal is up (no worker runs them).
    const decided = await agent.post('/api/verification/jobs', { listId, verificationMethod: 'smtp_api_fallback' });
    expect(decided.status).toBe(201);
    await h.sql(`update verification_job set verification_stage = 'awaiting_decision' where id = ?`, [decided.body.id]);
    const scrape = await agent.post('/api/scrape/jobs', scrapeForm('company\nAcme\n', { fields: { name: 'down' } }));
    expect(scrape.status).toBe(201);
    const otherList = (await agent.post('/api/lists', { name: 'Second' })).body.id;
    await agent.post(`/api/lists/${otherList}/leads`, { leads: [{ email: 'b@acme.test', networkUrl: 'https://www.linkedin.com/in/john-roe' }] });

    await temporalProxy.down();
    expectUnavailable(await promptly(agent.post('/api/verification/jobs', { listId: otherList, verificationMethod: 'smtp_only' })));
    expectUnavailable(await promptly(agent.post(`/api/verification/jobs/${decided.body.id}/decision`, { decision: 'accept_current' })));
    expectUnavailable(await promptly(agent.post('/api/scrape/jobs', scrapeForm('company\nAcme\n', { fields: { name: 'down-2' } }))));
    expectUnavailable(await promptly(agent.post(`/api/scrape/jobs/${scrape.body.job.id}/pause`)));
    expectUnavailable(await promptly(agent.post('/api/enrichment/bulk', { listId: otherList, fields: ['workEmail'] })));
    expectUnavailable(await promptly(agent.post('/api/enrichment/enrich', { networkUrl: 'https://www.linkedin.com/in/jane-doe' })));
    const ready = await promptly(agent.get('/readyz'));
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ database: 'ok', temporal: 'down' });
    expect((await h.sql('select count(*)::int as n from verification_job where list_id = ?', [otherList]))[0].n).toBe(0);
    expect((await h.sql(`select count(*)::int as n from scrape_job where name = 'down-2'`))[0].n).toBe(0);
    // The decision was not taken: the job still waits for one.
    expect((await agent.get(`/api/verification/jobs/${decided.body.id}`)).body.verificationStage).toBe('awaiting_decision');

    await temporalProxy.up();
    const again = await answering(() => agent.post(`/api/verification/jobs`, { listId: otherList, verificationMethod: 'smtp_only' }), 201);
    expect(again.status).toBe(201);
    expect((await agent.get('/readyz')).status).toBe(200);
  });
});

describe('PostgreSQL down', () => {
  it('answers 503 at once on every kind of route while it is gone, and normally once it is back', async () => {
    await pgProxy.down();
    expectUnavailable(await promptly(agent.get('/api/lists')));
    expectUnavailable(await promptly(agent.post('/api/lists', { name: 'x' })));
    expectUnavailable(await promptly(agent.post('/api/auth/login', { email: 'a@b.test', password: 'whatever password' })));
    const ready = await promptly(agent.get('/readyz'));
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ database: 'down' });

    await pgProxy.up();
    expect((await answering(() => agent.get('/api/lists'), 200)).status).toBe(200);
  });

  it('a database that refuses connections (SQLSTATE 55000) → 503, not 500', async () => {
    const name = `le_refusing_${randomUUID().replace(/-/g, '')}`;
    await h.sql(`create database ${name}`);
    await h.sql(`alter database ${name} allow_connections false`);
    const url = new URL(database);
    url.pathname = `/${name}`;
    const refusing = await startHarness({ env: { DATABASE_URL: url.toString() } });
    try {
      const login = new Agent(refusing.app);
      expectUnavailable(await promptly(login.post('/api/auth/login', { email: 'a@b.test', password: 'whatever password' })));
      expectUnavailable(await promptly(login.post('/api/auth/signup', { email: 'a@b.test', password: 'whatever password', organizationName: 'A' })));
    } finally {
      await refusing.stop();
      await h.sql(`drop database ${name}`);
    }
  });
});

describe('PostgreSQL silent (accepts connections, never answers)', () => {
  it('ends every request within a bounded time with 503 while the pools are warm, and recovers by itself', async () => {
    const silentProxy = new TcpProxy({ host: database.hostname, port: Number(database.port || 5432) });
    await silentProxy.up();
    const proxied = new URL(database);
    proxied.host = silentProxy.address;
    // Short limits so the test is quick; the bound is what matters: connect + one query's limit per step.
    const silent = await startHarness({ env: { DATABASE_URL: proxied.toString(), DATABASE_CONNECT_TIMEOUT: '2s', DATABASE_QUERY_TIMEOUT: '2s' } });
    try {
      const { agent: session } = await silent.signup();
      const { key } = await createKey(session, ['lists:read']);
      const byKey = () => new Agent(silent.app).get('/api/external/lists', { 'x-api-key': key });
      // Warm: every pool holds open connections through the proxy.
      for (let i = 0; i < 3; i += 1) {
        expect((await byKey()).status).toBe(200);
        expect((await session.get('/api/lists')).status).toBe(200);
      }

      silentProxy.freeze();
      const started = Date.now();
      const answers = await Promise.all([
        ...Array.from({ length: 8 }, () => promptly(byKey(), 30_000)),
        ...Array.from({ length: 4 }, () => promptly(session.get('/api/lists'), 30_000)),
      ]);
      const slowestMs = Date.now() - started;
      for (const res of answers) expectUnavailable(res);
      // Generous for a loaded machine; without limits these hang for good.
      expect(slowestMs).toBeLessThan(30_000);
      expect((await new Agent(silent.app).get('/healthz')).status).toBe(200);

      // The stuck connections are dropped, not reused: once the database answers again, so does every route.
      silentProxy.thaw();
      expect((await answering(byKey, 200)).status).toBe(200);
      expect((await answering(() => session.get('/api/lists'), 200)).status).toBe(200);
      const again = await Promise.all(Array.from({ length: 8 }, () => promptly(byKey(), 30_000)));
      expect(again.map((r) => r.status)).toEqual(Array(8).fill(200));
    } finally {
      // Down first: the connections frozen for good end only when their socket closes, which a stuck path never does.
      await silentProxy.down();
      await silent.stop();
    }
  });
});
