import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ProviderAuthError,
  ProviderResponseError,
  isRetryableProviderError,
} from '../../src/providers/errors.ts';
import { ZeroBounceProvider } from '../../src/providers/verification/zerobounce.ts';
import { startZeroBounceServer, type ZeroBounceServer } from '../../src/sandbox/providers/zerobounce.ts';
import { FAST_TUNING, rejectionOf } from '../support/providers/tuning.ts';

let server: ZeroBounceServer;

beforeAll(async () => {
  server = await startZeroBounceServer();
});
afterAll(() => server.close());
afterEach(() => {
  server.reset();
  server.fixtures.verdicts.clear();
  server.fixtures.batchErrors.clear();
});

/** `null`: no key configured. */
function provider(apiKey: string | null = server.apiKey): ZeroBounceProvider {
  return new ZeroBounceProvider({
    ...FAST_TUNING,
    apiKey: apiKey ?? undefined,
    baseUrl: server.url,
    bulkBaseUrl: `${server.url}/`,
    batchRateLimit: FAST_TUNING.rateLimit,
  });
}

describe('ZeroBounce adapter', () => {
  it('validates a single address through GET /v2/validate with api_key, email and ip_address', async () => {
    server.fixtures.verdicts.set('jane@acme.com', { status: 'invalid', sub_status: 'mailbox_not_found' });
    const verdicts = await provider().verify(['Jane@Acme.com']);
    expect(verdicts).toEqual([
      { email: 'Jane@Acme.com', result: 'Invalid', reason: 'invalid/mailbox_not_found' },
    ]);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({
      method: 'GET',
      path: '/v2/validate',
      query: { api_key: server.apiKey, email: 'Jane@Acme.com', ip_address: '' },
    });
  });

  it('maps every documented status (spamtrap, abuse, do_not_mail are unsafe → Invalid) and keeps status/sub_status as reason', async () => {
    const table = [
      ['valid@x.com', 'valid', '', 'Valid', 'valid'],
      ['invalid@x.com', 'invalid', 'mailbox_not_found', 'Invalid', 'invalid/mailbox_not_found'],
      ['catchall@x.com', 'catch-all', '', 'Catch-All', 'catch-all'],
      ['unknown@x.com', 'unknown', 'greylisted', 'Unknown', 'unknown/greylisted'],
      ['trap@x.com', 'spamtrap', '', 'Invalid', 'spamtrap'],
      ['abuse@x.com', 'abuse', '', 'Invalid', 'abuse'],
      ['dnm@x.com', 'do_not_mail', 'role_based', 'Invalid', 'do_not_mail/role_based'],
    ] as const;
    for (const [email, status, sub_status] of table)
      server.fixtures.verdicts.set(email, { status, sub_status });

    const verdicts = await provider().verify(table.map(([email]) => email));
    expect(verdicts).toEqual(table.map(([email, , , result, reason]) => ({ email, result, reason })));
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ method: 'POST', path: '/v2/validatebatch' });
    expect(server.requests[0]?.body).toEqual({
      api_key: server.apiKey,
      email_batch: table.map(([email]) => ({ email_address: email, ip_address: null })),
    });
  });

  it('splits batches at 200 addresses: 450 addresses → 3 calls, verdicts in input order', async () => {
    const emails = Array.from({ length: 450 }, (_, i) => `user${i}@acme.com`);
    server.fixtures.verdicts.set('user449@acme.com', { status: 'valid' });
    const verdicts = await provider().verify(emails);

    const batches = server.requests.map(
      (request) => (request.body as { email_batch: unknown[] }).email_batch.length,
    );
    expect(batches).toEqual([200, 200, 50]);
    expect(verdicts.map((v) => v.email)).toEqual(emails);
    expect(verdicts[449]).toEqual({ email: 'user449@acme.com', result: 'Valid', reason: 'valid' });
    expect(verdicts[0]).toEqual({ email: 'user0@acme.com', result: 'Unknown', reason: 'unknown' });
  });

  it('turns a per-address batch error into Unknown with the error as reason', async () => {
    server.fixtures.verdicts.set('ok@acme.com', { status: 'valid' });
    server.fixtures.batchErrors.set('broken@acme.com', 'Invalid email address format');
    const verdicts = await provider().verify(['ok@acme.com', 'broken@acme.com']);
    expect(verdicts).toEqual([
      { email: 'ok@acme.com', result: 'Valid', reason: 'valid' },
      { email: 'broken@acme.com', result: 'Unknown', reason: 'error: Invalid email address format' },
    ]);
  });

  it('reports a bad key on validate (HTTP 200 error body) as ProviderAuthError without the key', async () => {
    const error = await rejectionOf(provider('wrong-key-abcdef').verify(['a@acme.com']));
    expect(error).toBeInstanceOf(ProviderAuthError);
    expect(isRetryableProviderError(error)).toBe(false);
    expect((error as Error).message).toBe(
      'zerobounce rejected the API key: Invalid API key or your account ran out of credits',
    );
    expect(String(error)).not.toContain('wrong-key-abcdef');
    expect(server.requests).toHaveLength(1);
  });

  it('reports a bad key on validatebatch (errors[].email_address "all") as ProviderAuthError', async () => {
    const error = await rejectionOf(provider('wrong-key-abcdef').verify(['a@acme.com', 'b@acme.com']));
    expect(error).toBeInstanceOf(ProviderAuthError);
    expect((error as Error).message).toBe('zerobounce rejected the API key: Invalid API Key');
    expect(server.requests).toHaveLength(1);
  });

  it('reports a key revoked while running (the right key now refused) as ProviderAuthError', async () => {
    await provider().verify(['a@acme.com', 'b@acme.com']);
    server.setMode({ kind: 'bad-key' });
    await expect(provider().verify(['a@acme.com', 'b@acme.com'])).rejects.toBeInstanceOf(ProviderAuthError);
    await expect(provider().verify(['a@acme.com'])).rejects.toBeInstanceOf(ProviderAuthError);
  });

  it('fails without calling the provider when no key is configured', async () => {
    const error = await rejectionOf(provider(null).verify(['a@acme.com']));
    expect(error).toBeInstanceOf(ProviderAuthError);
    expect((error as Error).message).toBe('zerobounce has no API key configured');
    expect(server.requests).toHaveLength(0);
  });

  it('retries a 500 on the batch endpoint and succeeds', async () => {
    server.setMode({ kind: 'server-error' }, 1);
    const verdicts = await provider().verify(['a@acme.com', 'b@acme.com']);
    expect(verdicts).toHaveLength(2);
    expect(server.requests).toHaveLength(2);
  });

  it('rejects a malformed answer with ProviderResponseError', async () => {
    server.setMode({ kind: 'malformed', body: '{"email_batch": "nope"}' });
    await expect(provider().verify(['a@acme.com', 'b@acme.com'])).rejects.toBeInstanceOf(
      ProviderResponseError,
    );
  });

  it('calls nothing for an empty list', async () => {
    await expect(provider().verify([])).resolves.toEqual([]);
    expect(server.requests).toHaveLength(0);
  });
});
