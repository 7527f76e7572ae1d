import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDirectory } from '../../activities/deps.ts';
import { loadConfig } from '../../src/config.ts';
import { GET_CREDENTIAL_TYPE_PATH, MicrosoftDirectory, TENANT_TTL_MS } from '../../src/directory/microsoft.ts';
import { ARRIVAL_JITTER_MS } from '../../src/directory/pacer.ts';
import { busiestWindow, type MsLoginServer, startLookupProcess, startMsLogin } from '../support/directory/ms-login.ts';

/**
 * The Microsoft directory client (CONTRACT §12) against the sign-in host's stand-in and the run's PostgreSQL. What
 * was asked, when and how is read from the stand-in's own log, never from the client.
 */

const run = randomUUID().slice(0, 8);
const domain = (name: string) => `${name}-${run}.test`;
const HONEST = domain('honest');
const ALL = domain('all');
const THROTTLED = domain('throttled');
const REFUSED = domain('refused');
const FIVE = domain('five');
const SIX = domain('six');
const TWO = domain('two');
const FOUR = domain('four');

/** A sign-in path the service must never call. */
const OTHER_PATH = '/common/oauth2/v2.0/authorize';

let login: MsLoginServer;
const pools: pg.Pool[] = [];

/** A worker process as far as the pace and the canary cache can tell: its own pool. */
function directory(options: { rate?: number; timeoutMs?: number } = {}): MicrosoftDirectory {
  const pool = new pg.Pool({ connectionString: inject('databaseUrl'), max: 4 });
  pool.on('error', () => undefined);
  pools.push(pool);
  return new MicrosoftDirectory({
    baseUrl: login.url,
    pool,
    ratePerSecond: options.rate ?? 50,
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  });
}

const askedFor = (address: string) => login.usernames().filter((u) => u === address).length;
/** Canaries asked at a domain: the random local parts, not the addresses the cases look up. */
const canaries = (name: string) => login.usernames().filter((u) => u.endsWith(`@${name}`) && /^x[0-9a-f]{24}@/.test(u));
const canariesAt = (name: string) => canaries(name).length;

beforeAll(async () => {
  ({ server: login } = await startMsLogin({
    [HONEST]: { kind: 'honest', users: ['jane.doe', 'john.roe'] },
    [ALL]: { kind: 'accepts_all' },
    [THROTTLED]: { kind: 'throttles' },
    [REFUSED]: { kind: 'throttles', http429: true },
    [FIVE]: { kind: 'code', ifExistsResult: 5 },
    [SIX]: { kind: 'code', ifExistsResult: 6 },
    [TWO]: { kind: 'code', ifExistsResult: 2 },
    [FOUR]: { kind: 'code', ifExistsResult: 4 },
  }));
});
afterAll(async () => {
  // Whatever each case asked, the sign-in host saw nothing but the user lookup: no sign-in, no other page.
  // (The case that checks the stand-in answers 404 elsewhere asks OTHER_PATH itself.)
  const foreign = login.requests.filter((r) => (r.method !== 'POST' || r.path !== GET_CREDENTIAL_TYPE_PATH) && r.path !== OTHER_PATH);
  expect(foreign.map((r) => `${r.method} ${r.path}`)).toEqual([]);
  await login?.close();
  await Promise.all(pools.map((pool) => pool.end()));
});

describe('MicrosoftDirectory.lookup', () => {
  it('posts the address, lower-cased, to GetCredentialType as the sign-in page does, and nothing else', async () => {
    const before = login.requests.length;
    expect(await directory().lookup(' Jane.Doe@' + HONEST.toUpperCase())).toEqual({ kind: 'exists', ifExistsResult: 0 });
    const [request] = login.requests.slice(before);
    expect(request).toMatchObject({ method: 'POST', path: '/common/GetCredentialType' });
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers.authorization).toBeUndefined();
    expect(request!.body).toMatchObject({
      Username: `jane.doe@${HONEST}`,
      isOtherIdpSupported: true,
      checkPhones: false,
      isRemoteNGCSupported: true,
      isCookieBannerShown: false,
      isFidoSupported: true,
      originalRequest: '',
      flowToken: '',
    });
    expect(JSON.stringify(request!.body)).not.toMatch(/password/i);
  });

  it.each([
    ['IfExistsResult 0', `john.roe@${HONEST}`, { kind: 'exists', ifExistsResult: 0 }],
    ['IfExistsResult 1', `nobody@${HONEST}`, { kind: 'absent', ifExistsResult: 1 }],
    ['IfExistsResult 5', `a@${FIVE}`, { kind: 'exists', ifExistsResult: 5 }],
    ['IfExistsResult 6', `a@${SIX}`, { kind: 'exists', ifExistsResult: 6 }],
    ['an unknown IfExistsResult (2)', `a@${TWO}`, { kind: 'no_verdict', reason: 'IfExistsResult 2' }],
    ['an unknown IfExistsResult (4)', `a@${FOUR}`, { kind: 'no_verdict', reason: 'IfExistsResult 4' }],
    ['ThrottleStatus 1 (with IfExistsResult 0)', `a@${THROTTLED}`, { kind: 'no_verdict', reason: 'throttled (ThrottleStatus 1)' }],
    ['HTTP 429', `a@${REFUSED}`, { kind: 'no_verdict', reason: 'HTTP 429' }],
  ])('%s → %o', async (_case, address, expected) => {
    expect(await directory().lookup(address)).toEqual(expected);
    expect(askedFor(address)).toBeGreaterThanOrEqual(1);
  });

  it('HTTP 500, a body that is not JSON or far too large, and no answer in time are no verdict', async () => {
    const client = directory({ timeoutMs: 300 });
    login.setMode({ kind: 'server-error' }, 1);
    expect(await client.lookup(`jane.doe@${HONEST}`)).toEqual({ kind: 'no_verdict', reason: 'HTTP 500' });
    login.setMode({ kind: 'malformed' }, 1);
    expect(await client.lookup(`jane.doe@${HONEST}`)).toEqual({ kind: 'no_verdict', reason: 'the answer is not JSON' });
    login.setMode({ kind: 'malformed', body: 'x'.repeat(200_000) }, 1);
    expect(await client.lookup(`jane.doe@${HONEST}`)).toEqual({ kind: 'no_verdict', reason: 'network error: an answer over 65536 bytes' });
    login.setMode({ kind: 'delay', ms: 1_500 }, 1);
    const started = Date.now();
    expect(await client.lookup(`jane.doe@${HONEST}`)).toEqual({ kind: 'no_verdict', reason: 'no answer within 300 ms' });
    expect(Date.now() - started).toBeLessThan(1_200);
    // The host is fine again: the same address is found.
    expect(await client.lookup(`jane.doe@${HONEST}`)).toEqual({ kind: 'exists', ifExistsResult: 0 });
  });

  it('a host that does not listen is no verdict', async () => {
    const closed = await startMsLogin({});
    await closed.server.close();
    const pool = new pg.Pool({ connectionString: inject('databaseUrl'), max: 2 });
    pools.push(pool);
    const client = new MicrosoftDirectory({ baseUrl: closed.server.url, pool, ratePerSecond: 50 });
    expect(await client.lookup(`jane.doe@${HONEST}`)).toMatchObject({ kind: 'no_verdict', reason: expect.stringMatching(/^network error/) });
  });

  it('an aborted caller sends nothing: the lookup rejects with its reason', async () => {
    const before = login.requests.length;
    const controller = new AbortController();
    controller.abort(new Error('job cancelled'));
    await expect(directory().lookup(`jane.doe@${HONEST}`, { signal: controller.signal })).rejects.toThrow('job cancelled');
    // Waiting for a slot far ahead is abandoned as soon as the caller aborts.
    const slow = directory({ rate: 0.5 });
    await slow.lookup(`jane.doe@${HONEST}`);
    const waiting = new AbortController();
    const started = Date.now();
    const pending = slow.lookup(`john.roe@${HONEST}`, { signal: waiting.signal });
    setTimeout(() => waiting.abort(new Error('job cancelled')), 100);
    await expect(pending).rejects.toThrow('job cancelled');
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(login.requests.length - before).toBe(1);
  });

  it('a slow retry counts as two requests of the pace', async () => {
    const client = directory({ rate: 4 });
    const interval = (1000 + ARRIVAL_JITTER_MS) / 4;
    const before = login.requests.length;
    await client.lookup(`a@${TWO}`);
    await client.lookup(`b@${TWO}`, { slow: true });
    await client.lookup(`jane.doe@${HONEST}`);
    const [first, slow, after] = login.requests.slice(before).map((r) => r.at);
    // One slot after an ordinary request, two after the slow one (less what a late arrival may take off).
    expect(slow! - first!).toBeGreaterThanOrEqual(interval - ARRIVAL_JITTER_MS);
    expect(after! - slow!).toBeGreaterThanOrEqual(2 * interval - ARRIVAL_JITTER_MS);
  });
});

describe('MicrosoftDirectory.tenant (the canary)', () => {
  it("a tenant that says 'absent' for an address that cannot exist is honest", async () => {
    expect(await directory().tenant(HONEST.toUpperCase())).toBe('honest');
    // Every address asked at the domain but the cases' own is the canary: one, random.
    const others = login.usernames().filter((u) => u.endsWith(`@${HONEST}`) && !['jane.doe', 'john.roe', 'nobody'].includes(u.split('@')[0]!));
    expect(others).toEqual(canaries(HONEST));
    expect(others).toHaveLength(1);
  });

  it("a tenant that says the canary exists accepts all, and 5 and 6 count as 'exists' too", async () => {
    expect(await directory().tenant(ALL)).toBe('accepts_all');
    expect(await directory().tenant(FIVE)).toBe('accepts_all');
  });

  it('is asked once per domain: another worker (its own pool) reuses the verdict', async () => {
    const name = domain('shared');
    login.tenants.set(name, { kind: 'honest', users: [] });
    expect(await directory().tenant(name)).toBe('honest');
    expect(await directory().tenant(name)).toBe('honest');
    expect(canariesAt(name)).toBe(1);
    // Two workers at once: one asks, the other waits for its verdict.
    const both = domain('both');
    login.tenants.set(both, { kind: 'accepts_all' });
    login.setMode({ kind: 'delay', ms: 400 }, 1);
    expect(await Promise.all([directory().tenant(both), directory().tenant(both)])).toEqual(['accepts_all', 'accepts_all']);
    expect(canariesAt(both)).toBe(1);
  });

  it('a throttled canary is unknown and not kept: the next call asks again', async () => {
    expect(await directory().tenant(THROTTLED)).toBe('unknown');
    expect(await directory().tenant(REFUSED)).toBe('unknown');
    expect(await directory().tenant(THROTTLED)).toBe('unknown');
    expect(canariesAt(THROTTLED)).toBe(2);
    // Microsoft stops throttling: the next canary decides.
    login.tenants.set(THROTTLED, { kind: 'honest', users: [] });
    expect(await directory().tenant(THROTTLED)).toBe('honest');
    expect(canariesAt(THROTTLED)).toBe(3);
  });

  it('a verdict older than a day is asked again', async () => {
    const name = domain('stale');
    login.tenants.set(name, { kind: 'accepts_all' });
    const db = new pg.Pool({ connectionString: inject('databaseUrl'), max: 1 });
    pools.push(db);
    expect(await directory().tenant(name)).toBe('accepts_all');
    await db.query(`update directory_tenant set checked_at = checked_at - $2 * interval '1 millisecond' where domain = $1`, [name, TENANT_TTL_MS + 1_000]);
    login.tenants.set(name, { kind: 'honest', users: [] });
    expect(await directory().tenant(name)).toBe('honest');
    expect(canariesAt(name)).toBe(2);
  });
});

describe("the worker's directory", () => {
  it('is built from MS_LOGIN_BASE_URL and MS_DIRECTORY_RATE when MS_DIRECTORY_CHECK=on, and is null otherwise', async () => {
    const env = { NODE_ENV: 'test', DATABASE_URL: inject('databaseUrl'), LOG_LEVEL: 'error', MS_LOGIN_BASE_URL: login.url };
    expect(createDirectory(loadConfig(env))).toBeNull();
    expect(createDirectory(loadConfig({ ...env, MS_DIRECTORY_CHECK: 'off' }))).toBeNull();
    const worker = createDirectory(loadConfig({ ...env, MS_DIRECTORY_CHECK: 'on', MS_DIRECTORY_RATE: '20' }));
    expect(worker).toBeInstanceOf(MicrosoftDirectory);
    expect(await worker!.lookup(`john.roe@${HONEST}`)).toEqual({ kind: 'exists', ifExistsResult: 0 });
    expect(login.usernames().at(-1)).toBe(`john.roe@${HONEST}`);
  });
});

describe('the sign-in stand-in', () => {
  it('answers 404 on any other path, and records it', async () => {
    const res = await fetch(`${login.url}${OTHER_PATH}`);
    expect(res.status).toBe(404);
    expect(login.requests.at(-1)).toMatchObject({ method: 'GET', path: OTHER_PATH });
  });
});

describe('the pace, across worker processes', () => {
  it('three processes at MS_DIRECTORY_RATE=4: no one-second window at the host holds more than 4 requests', async () => {
    const rate = 4;
    const name = domain('paced');
    login.tenants.set(name, { kind: 'honest', users: ['p0-0', 'p1-0', 'p2-0'] });
    const addresses = [0, 1, 2].map((p) => Array.from({ length: 12 }, (_, k) => `p${p}-${k}@${name}`));
    const processes = await Promise.all(
      addresses.map((list) => startLookupProcess({ databaseUrl: inject('databaseUrl'), baseUrl: login.url, rate, addresses: list, warmUp: `warm-up@${domain('warm')}` })),
    );
    const before = login.requests.length;
    for (const process of processes) process.go();
    // Each process got its own answers right.
    for (const [p, process] of processes.entries()) {
      expect(await process.answers).toEqual(Object.fromEntries(addresses[p]!.map((email) => [email, email === `p${p}-0@${name}` ? 'exists' : 'absent'])));
    }
    const arrivals = login.requests.slice(before).filter((r) => (r.body as { Username?: string })?.Username?.endsWith(`@${name}`)).map((r) => r.at);
    expect(arrivals).toHaveLength(36);
    expect(busiestWindow(arrivals)).toBeLessThanOrEqual(rate);
    // And not slower than the pace needs either: (N − rate) / rate seconds at the least, about (N − 1) slots at most.
    const span = Math.max(...arrivals) - Math.min(...arrivals);
    expect(span).toBeGreaterThanOrEqual(((36 - rate) / rate) * 1000);
    expect(span).toBeLessThan(2 * 35 * ((1000 + ARRIVAL_JITTER_MS) / rate));
  });
});
