import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ProviderAuthError } from '../../src/providers/errors.ts';
import { ReacherProvider } from '../../src/providers/verification/reacher.ts';
import { startReacherServer, type ReacherServer } from '../../src/sandbox/providers/reacher.ts';
import { FAST_TUNING, rejectionOf } from '../support/providers/tuning.ts';

const SECRET = 'reacher-secret-0001';
let server: ReacherServer;

beforeAll(async () => {
  server = await startReacherServer({ apiKey: SECRET });
});
afterAll(() => server.close());
afterEach(() => {
  server.reset();
  server.fixtures.outcomes.clear();
});

const provider = (apiKey: string = SECRET, concurrency = 3) =>
  new ReacherProvider({ ...FAST_TUNING, baseUrl: server.url, apiKey, concurrency });

describe('Reacher adapter', () => {
  it('maps is_reachable (risky is Catch-All only on a catch-all domain) and keeps input order', async () => {
    server.fixtures.outcomes.set('safe@x.com', { is_reachable: 'safe' });
    server.fixtures.outcomes.set('bad@x.com', { is_reachable: 'invalid' });
    server.fixtures.outcomes.set('catch@x.com', { is_reachable: 'risky', is_catch_all: true });
    server.fixtures.outcomes.set('risky@x.com', { is_reachable: 'risky', is_catch_all: false });
    const emails = ['safe@x.com', 'bad@x.com', 'catch@x.com', 'risky@x.com', 'nobody@x.com'];

    expect(await provider().verify(emails)).toEqual([
      { email: 'safe@x.com', result: 'Valid', reason: 'safe' },
      { email: 'bad@x.com', result: 'Invalid', reason: 'invalid' },
      { email: 'catch@x.com', result: 'Catch-All', reason: 'risky/catch_all' },
      { email: 'risky@x.com', result: 'Valid', reason: 'risky' },
      // The stand-in answers unknown addresses with an SMTP error object in place of the flags.
      { email: 'nobody@x.com', result: 'Unknown', reason: 'unknown' },
    ]);
    // Requests run concurrently, so they may arrive in any order.
    expect(server.requests.map((r) => [r.method, r.path, r.body])).toEqual(
      expect.arrayContaining(emails.map((email) => ['POST', '/v1/check_email', { to_email: email }])),
    );
    expect(server.requests).toHaveLength(emails.length);
  });

  it('sends the key as x-reacher-secret and Authorization', async () => {
    await provider().verify(['a@x.com']);
    expect(server.requests[0]?.headers['x-reacher-secret']).toBe(SECRET);
    expect(server.requests[0]?.headers.authorization).toBe(SECRET);
  });

  it('runs a batch a few requests at a time, never more than the concurrency', async () => {
    server.setMode({ kind: 'delay', ms: 40 });
    const emails = Array.from({ length: 9 }, (_, i) => `u${i}@x.com`);
    const verdicts = await provider(SECRET, 3).verify(emails);
    expect(verdicts).toHaveLength(9);
    expect(server.maxInFlight).toBe(3);
  });

  it('reports a rejected secret as ProviderAuthError without the secret', async () => {
    const error = await rejectionOf(provider('not-the-secret').verify(['a@x.com']));
    expect(error).toBeInstanceOf(ProviderAuthError);
    expect((error as Error).message).toMatch(/^reacher rejected the API key \(HTTP 401\)/);
    expect(String(error)).not.toContain('not-the-secret');
  });

  it('fails clearly when no base URL is configured', async () => {
    const unconfigured = new ReacherProvider({ ...FAST_TUNING });
    await expect(unconfigured.verify(['a@x.com'])).rejects.toThrow('reacher has no base URL configured');
  });
});
