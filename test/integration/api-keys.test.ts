import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordApiKeyUse } from '../../src/auth/api-keys.ts';
import { sha256Hex } from '../../src/auth/tokens.ts';
import { initOrm, type Orm } from '../../src/db/orm.ts';
import { generateApiKey } from '../../src/domain/api-key-format.ts';
import { createApp } from '../../src/http/app.ts';
import { startIntegrationAccess } from '../../src/integration-access.ts';
import { Agent, expectError } from '../support/agent.ts';
import { createKey } from '../support/auth-cases.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
let session: Agent;
beforeAll(async () => {
  h = await startHarness();
  ({ agent: session } = await h.signup());
});
afterAll(() => h.stop());

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

describe('POST /api/api-keys', () => {
  it('creates a key and shows the secret in the creation response only', async () => {
    const expiresAt = inAnHour();
    const res = await session.post('/api/api-keys', { name: ' Dialer ', scopes: ['leads:read', 'lists:read', 'leads:read'], expiresAt });
    expect(res.status).toBe(201);
    const { key, ...shown } = res.body;
    expect(key).toMatch(/^lek_[0-9A-Za-z]{38}$/);
    expect(shown).toEqual({
      id: expect.any(String),
      name: 'Dialer',
      scopes: ['leads:read', 'lists:read'],
      start: key.slice(0, 8),
      createdAt: expect.stringMatching(/Z$/),
      expiresAt,
      lastUsedAt: null,
      revokedAt: null,
    });

    const listed = await session.get('/api/api-keys');
    expect(listed.body.data.find((k: { id: string }) => k.id === shown.id)).toEqual(shown);
    expect(listed.text).not.toContain(key);
    expect(listed.text).not.toContain(key.slice(8));

    const [row] = await h.sql(`select * from api_key where id = ?`, [shown.id]);
    expect(row.key_hash).toBe(sha256Hex(key));
    expect(JSON.stringify(row)).not.toContain(key.slice(8));
  });

  it('accepts a key without expiry', async () => {
    const res = await session.post('/api/api-keys', { name: 'Script', scopes: ['lists:write'] });
    expect(res.status).toBe(201);
    expect(res.body.expiresAt).toBeNull();
  });

  it.each([
    ['an unknown scope', { name: 'x', scopes: ['lists:read', 'admin'] }, 'json.scopes.1'],
    ['no scopes', { name: 'x', scopes: [] }, 'json.scopes'],
    ['missing scopes', { name: 'x' }, 'json.scopes'],
    ['an empty name', { name: '  ', scopes: ['lists:read'] }, 'json.name'],
    ['an expiry in the past', { name: 'x', scopes: ['lists:read'], expiresAt: '2020-01-01T00:00:00.000Z' }, 'json.expiresAt'],
    ['an expiry that is not a timestamp', { name: 'x', scopes: ['lists:read'], expiresAt: 'tomorrow' }, 'json.expiresAt'],
    ['an unknown field', { name: 'x', scopes: ['lists:read'], key: generateApiKey() }, 'json'],
  ])('refuses %s with 400', async (_name, body, path) => {
    const error = expectError(await session.post('/api/api-keys', body), 400, 'validation_error');
    expect(error.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('needs a session (and refuses a cross-site write)', async () => {
    expectError(await new Agent(h.app).post('/api/api-keys', { name: 'x', scopes: ['lists:read'] }), 401, 'unauthorized');
    expectError(await session.post('/api/api-keys', { name: 'x', scopes: ['lists:read'] }, { origin: 'https://evil.test' }), 403, 'forbidden');
  });
});

describe('GET /api/api-keys', () => {
  it("lists only the organization's keys, newest first, revoked ones with revokedAt", async () => {
    const { agent: own } = await h.signup();
    const first = await createKey(own, ['lists:read'], { name: 'first' });
    const second = await createKey(own, ['leads:write'], { name: 'second' });
    await own.delete(`/api/api-keys/${first.id}`);
    await createKey(session, ['lists:read'], { name: 'someone else' });
    const { data } = (await own.get('/api/api-keys')).body;
    expect(data.map((k: { name: string }) => k.name)).toEqual(['second', 'first']);
    expect(data[0]).toMatchObject({ id: second.id, revokedAt: null });
    expect(data[1].revokedAt).toMatch(/Z$/);
    for (const k of data) expect(k).not.toHaveProperty('key');
  });
});

describe('DELETE /api/api-keys/:id', () => {
  it('revokes at once: the next request with the key is refused', async () => {
    const { id, key } = await createKey(session, ['lists:read']);
    const client = new Agent(h.app);
    expect((await client.get('/api/external/lists', { 'x-api-key': key })).status).toBe(200);
    expect((await session.delete(`/api/api-keys/${id}`)).status).toBe(204);
    const error = expectError(await client.get('/api/external/lists', { 'x-api-key': key }), 401, 'unauthorized');
    expect(error.details.reason).toBe('revoked');
  });

  it('keeps the first revocation time when revoked again', async () => {
    const { id } = await createKey(session, ['lists:read']);
    await session.delete(`/api/api-keys/${id}`);
    const [before] = await h.sql(`select revoked_at from api_key where id = ?`, [id]);
    expect((await session.delete(`/api/api-keys/${id}`)).status).toBe(204);
    const [after] = await h.sql(`select revoked_at from api_key where id = ?`, [id]);
    expect(after.revoked_at).toEqual(before.revoked_at);
  });

  it("answers 404 for another organization's key and for a bad id, leaving the key working", async () => {
    const { agent: other } = await h.signup();
    const { id, key } = await createKey(other, ['lists:read']);
    expectError(await session.delete(`/api/api-keys/${id}`), 404, 'not_found');
    expectError(await session.delete('/api/api-keys/not-a-uuid'), 400, 'validation_error');
    expect((await new Agent(h.app).get('/api/external/lists', { 'x-api-key': key })).status).toBe(200);
  });
});

describe('key lookups and lastUsedAt', () => {
  let counting: Orm;
  let integrationAccess: Awaited<ReturnType<typeof startIntegrationAccess>>;
  let queries: string[];
  let client: Agent;
  beforeAll(async () => {
    queries = [];
    counting = await initOrm(h.config.DATABASE_URL!, { pool: { max: 2 }, debug: ['query', 'query-params'], logger: (message) => queries.push(message) });
    await counting.em.fork().execute('select 1'); // connects (and checks the database) before anything is counted
    integrationAccess = startIntegrationAccess(h.config);
    await integrationAccess.ready; // keys are kept in memory only while changes are being pushed
    // The hot path talks to the pool directly: record its statements (text and parameters) on the way through.
    const query = integrationAccess.pool.query.bind(integrationAccess.pool) as (...args: unknown[]) => unknown;
    (integrationAccess.pool as { query: unknown }).query = (config: { text: string; values?: unknown[] }, ...rest: unknown[]) => {
      queries.push(`${config.text} ${JSON.stringify(config.values ?? [])}`);
      return query(config, ...rest);
    };
    client = new Agent(createApp({ config: h.config, orm: counting, temporal: h.temporal, ...integrationAccess }));
  });
  afterAll(async () => {
    await integrationAccess.close();
    await counting.close();
  });

  const queriesDuring = async (run: () => Promise<unknown>) => {
    queries.length = 0;
    await run();
    return [...queries];
  };

  it('refuses malformed keys without a single database query', async () => {
    const good = generateApiKey();
    for (const key of ['nope', good.slice(0, -1) + (good.endsWith('a') ? 'b' : 'a'), `${good}x`, good.replace('lek_', 'LEK_')]) {
      const ran = await queriesDuring(async () => expectError(await client.get('/api/external/lists', { 'x-api-key': key }), 401, 'unauthorized'));
      expect(ran).toEqual([]);
    }
    // The counter does see queries: a well-formed unknown key is looked up, by its hash only.
    const lookup = await queriesDuring(async () => expectError(await client.get('/api/external/lists', { 'x-api-key': good }), 401, 'unauthorized'));
    expect(lookup).toHaveLength(1);
    expect(lookup[0]).toMatch(/from api_key/);
    expect(lookup[0]).toContain(sha256Hex(good));
    expect(lookup[0]).not.toContain(good);
    // ...once: the same unknown key again is refused from memory.
    expect(await queriesDuring(async () => expectError(await client.get('/api/external/lists', { 'x-api-key': good }), 401, 'unauthorized'))).toEqual([]);
  });

  it('looks a known key up once, then answers from memory', async () => {
    const { key } = await createKey(session, ['lists:read']);
    const lookups = (ran: string[]) => ran.filter((q) => /from api_key/.test(q));
    expect(lookups(await queriesDuring(() => client.get('/api/external/lists', { 'x-api-key': key })))).toHaveLength(1);
    for (let i = 0; i < 3; i++) {
      expect(lookups(await queriesDuring(() => client.get('/api/external/lists', { 'x-api-key': key })))).toEqual([]);
    }
  });

  it('sets lastUsedAt on first use and writes it again only once it is a minute old', async () => {
    const { id, key } = await createKey(session, ['lists:read']);
    const use = () => client.get('/api/external/lists', { 'x-api-key': key });
    const writes = (ran: string[]) => ran.filter((q) => /update "?api_key"?/i.test(q));

    expect(writes(await queriesDuring(use))).toHaveLength(1);
    const [first] = await h.sql(`select last_used_at from api_key where id = ?`, [id]);
    expect(Date.parse(first.last_used_at)).toBeGreaterThan(Date.now() - 60_000);

    for (let i = 0; i < 3; i++) expect(writes(await queriesDuring(use))).toEqual([]);
    const [still] = await h.sql(`select last_used_at from api_key where id = ?`, [id]);
    expect(still.last_used_at).toEqual(first.last_used_at);

    // A process whose copy is a minute old writes again (the harness's app never saw this key: its copy is the row's).
    await h.sql(`update api_key set last_used_at = now() - interval '61 seconds' where id = ?`, [id]);
    expect((await new Agent(h.app).get('/api/external/lists', { 'x-api-key': key })).status).toBe(200);
    const [refreshed] = await h.sql(`select last_used_at, now() - last_used_at < interval '10 seconds' as fresh from api_key where id = ?`, [id]);
    expect(refreshed.fresh).toBe(true);

    const listed = (await session.get('/api/api-keys')).body.data.find((k: { id: string }) => k.id === id);
    expect(Date.parse(listed.lastUsedAt)).toBe(Math.floor(Date.parse(refreshed.last_used_at)));
  });

  it('writes lastUsedAt once within the minute even from processes that each hold a stale copy', async () => {
    const { id } = await createKey(session, ['lists:read']);
    const lastUsed = async () => (await h.sql(`select last_used_at from api_key where id = ?`, [id]))[0].last_used_at as string | null;
    await recordApiKeyUse(h.pool, id);
    const first = await lastUsed();
    expect(first).not.toBeNull();
    // A second process still believes the key unused: its UPDATE runs, but its condition leaves the row alone.
    await recordApiKeyUse(integrationAccess.pool, id);
    expect(await lastUsed()).toEqual(first);
  });
});
