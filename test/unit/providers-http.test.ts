import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ProviderAuthError,
  ProviderRateLimitError,
  ProviderRequestError,
  ProviderResponseError,
  ProviderUnavailableError,
  isRetryableProviderError,
} from '../../src/providers/errors.ts';
import { ProviderHttpClient, parseRetryAfter, type ProviderHttpOptions } from '../../src/providers/http.ts';
import { redactSecrets } from '../../src/providers/redact.ts';
import { startStandIn, type Reply, type StandIn } from '../../src/sandbox/providers/stand-in.ts';
import { FAST_TUNING, rejectionOf } from '../support/providers/tuning.ts';

const SECRET = 'sk-very-secret-0123456789';
const okSchema = z.object({ ok: z.literal(true) });

let server: StandIn;
let reply: (path: string) => Reply;

beforeAll(async () => {
  server = await startStandIn((request) => reply(request.path));
});
afterAll(() => server.close());
afterEach(() => {
  server.reset();
  reply = () => ({ status: 200, json: { ok: true } });
});
reply = () => ({ status: 200, json: { ok: true } });

function client(overrides: Partial<ProviderHttpOptions> = {}): ProviderHttpClient {
  return new ProviderHttpClient({
    provider: 'acme',
    ...FAST_TUNING,
    timeoutMs: FAST_TUNING.timeoutMs,
    ...overrides,
  });
}

const get = (c: ProviderHttpClient, extra: object = {}) =>
  c.sendJson(
    {
      method: 'GET',
      baseUrl: server.url,
      path: '/thing',
      query: { api_key: SECRET },
      secrets: [SECRET],
      ...extra,
    },
    okSchema,
  );

describe('ProviderHttpClient', () => {
  it('sends query, headers and JSON body, and returns the parsed body', async () => {
    const body = await client().sendJson(
      {
        method: 'POST',
        baseUrl: `${server.url}/prefix`,
        path: '/items',
        query: { a: '1', skipped: undefined },
        headers: { 'x-api-key': SECRET },
        json: { q: 'x' },
      },
      okSchema,
    );
    expect(body).toEqual({ ok: true });
    const [request] = server.requests;
    expect(request).toMatchObject({
      method: 'POST',
      path: '/prefix/items',
      query: { a: '1' },
      body: { q: 'x' },
    });
    expect(request?.headers['x-api-key']).toBe(SECRET);
    expect(request?.headers['content-type']).toBe('application/json');
  });

  it('retries a 500 and succeeds on the next answer', async () => {
    server.setMode({ kind: 'server-error' }, 1);
    await expect(get(client())).resolves.toEqual({ ok: true });
    expect(server.requests).toHaveLength(2);
  });

  it('gives up after maxAttempts 5xx answers with ProviderUnavailableError', async () => {
    server.setMode({ kind: 'server-error', status: 503 });
    const error = await rejectionOf(get(client()));
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error).toMatchObject({ provider: 'acme', status: 503, retryable: true });
    expect(server.requests).toHaveLength(FAST_TUNING.retry.maxAttempts);
  });

  it('waits as long as Retry-After (seconds) says before retrying a 429', async () => {
    server.setMode({ kind: 'rate-limited', retryAfter: '1' }, 1);
    const started = Date.now();
    await expect(get(client())).resolves.toEqual({ ok: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(server.requests).toHaveLength(2);
  });

  it('honours Retry-After given as an HTTP date', async () => {
    // HTTP dates have one-second resolution: ask for a moment at least one full second ahead.
    const at = new Date(Math.ceil(Date.now() / 1000) * 1000 + 1000);
    server.setMode({ kind: 'rate-limited', retryAfter: at.toUTCString() }, 1);
    await expect(get(client())).resolves.toEqual({ ok: true });
    expect(Date.now()).toBeGreaterThanOrEqual(at.getTime() - 20);
    expect(server.requests).toHaveLength(2);
  });

  it('fails at once with the delay when Retry-After exceeds the in-call cap', async () => {
    server.setMode({ kind: 'rate-limited', retryAfter: '120' });
    const error = await rejectionOf(get(client()));
    expect(error).toBeInstanceOf(ProviderRateLimitError);
    expect((error as ProviderRateLimitError).retryAfterMs).toBe(120_000);
    expect(isRetryableProviderError(error)).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('reports a persistent 429 without Retry-After as ProviderRateLimitError after the attempts', async () => {
    server.setMode({ kind: 'rate-limited' });
    const error = await rejectionOf(get(client()));
    expect(error).toBeInstanceOf(ProviderRateLimitError);
    expect((error as ProviderRateLimitError).retryAfterMs).toBeGreaterThan(0);
    expect(server.requests).toHaveLength(FAST_TUNING.retry.maxAttempts);
  });

  it('treats extra throttle statuses like 429', async () => {
    server.setMode({ kind: 'rate-limited', status: 403 }, 1);
    await expect(get(client(), { throttleStatuses: [403] })).resolves.toEqual({ ok: true });
    expect(server.requests).toHaveLength(2);
  });

  it.each([401, 403])('maps %i to ProviderAuthError without retrying or leaking the key', async (status) => {
    reply = () => ({ status, json: { error: { message: `key ${SECRET} is not valid` } } });
    const error = await rejectionOf(get(client()));
    expect(error).toBeInstanceOf(ProviderAuthError);
    expect(isRetryableProviderError(error)).toBe(false);
    expect((error as Error).message).toMatch(`acme rejected the API key (HTTP ${status})`);
    expect(String(error)).not.toContain(SECRET);
    expect(JSON.stringify(error)).not.toContain(SECRET);
    expect(server.requests).toHaveLength(1);
  });

  it('maps 402 to ProviderAuthError (the account cannot pay)', async () => {
    reply = () => ({ status: 402, json: { message: 'Payment required' } });
    const error = await rejectionOf(get(client()));
    expect(error).toBeInstanceOf(ProviderAuthError);
    expect((error as Error).message).toContain('payment required');
  });

  it('maps other 4xx answers to a non-retryable ProviderRequestError', async () => {
    reply = () => ({ status: 400, json: { message: 'Not enough credits' } });
    const error = await rejectionOf(get(client()));
    expect(error).toBeInstanceOf(ProviderRequestError);
    expect((error as Error).message).toBe('acme refused the request (HTTP 400): Not enough credits');
    expect(isRetryableProviderError(error)).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it('returns accepted non-2xx statuses to the caller', async () => {
    reply = () => ({ status: 404, json: { status: 404 } });
    const answer = await client().send({ method: 'GET', baseUrl: server.url, path: '/x', accept: [404] });
    expect(answer).toMatchObject({ status: 404, body: { status: 404 } });
  });

  it('times out a slow answer, retries, then fails with ProviderUnavailableError', async () => {
    server.setMode({ kind: 'delay', ms: 300 });
    const error = await rejectionOf(get(client({ timeoutMs: 40 })));
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect((error as Error).message).toBe('acme did not answer within 40 ms');
    expect(server.requests).toHaveLength(FAST_TUNING.retry.maxAttempts);
  });

  it('reports an unreachable host as ProviderUnavailableError without the URL', async () => {
    const dead = await startStandIn(() => ({ status: 200 }));
    await dead.close();
    const error = await rejectionOf(
      client().send({
        method: 'GET',
        baseUrl: dead.url,
        path: '/x',
        query: { api_key: SECRET },
        secrets: [SECRET],
      }),
    );
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect((error as Error).message).toBe('acme is unreachable (ECONNREFUSED)');
  });

  it('rejects a body that is not JSON with ProviderResponseError', async () => {
    server.setMode({ kind: 'malformed' });
    const error = await rejectionOf(get(client()));
    expect(error).toBeInstanceOf(ProviderResponseError);
    expect((error as Error).message).toBe('acme answered HTTP 200 with a body that is not JSON');
    expect(server.requests).toHaveLength(1);
  });

  it('rejects JSON that does not match the schema with ProviderResponseError naming the field', async () => {
    reply = () => ({ status: 200, json: { ok: 'yes' } });
    const error = await rejectionOf(get(client()));
    expect(error).toBeInstanceOf(ProviderResponseError);
    expect((error as Error).message).toMatch(/^acme answered HTTP 200 with an unexpected body \(ok: /);
  });

  it('makes every call of one client share its rate limit', async () => {
    const limited = client({ rateLimit: { perSecond: 10, burst: 1 } });
    const started = Date.now();
    await Promise.all([get(limited), get(limited), get(limited), get(limited)]);
    // Four requests at 10/s with no burst: the last may start 300 ms after the first.
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(server.requests).toHaveLength(4);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-20T12:00:00.000Z');
  it.each([
    ['0', 0],
    ['7', 7_000],
    [' 30 ', 30_000],
    ['Fri, 20 Nov 2026 12:00:10 GMT', 10_000],
    ['Fri, 20 Nov 2026 11:59:00 GMT', 0],
  ])('%j → %i ms', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
  it.each([null, '', 'soon', '-5', '1.5'])('%j → undefined', (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});

describe('redactSecrets', () => {
  it('hides key query parameters and literal secrets', () => {
    expect(
      redactSecrets(`GET https://api.example/v2/validate?api_key=abc123&email=a@b.c failed for ${SECRET}`, [
        SECRET,
      ]),
    ).toBe('GET https://api.example/v2/validate?api_key=[redacted]&email=a@b.c failed for [redacted]');
  });
});

describe('isRetryableProviderError', () => {
  it.each([
    [new ProviderAuthError('p', 'm'), false],
    [new ProviderRequestError('p', 'm'), false],
    [new ProviderRateLimitError('p', 'm', 1000), true],
    [new ProviderUnavailableError('p', 'm'), true],
    [new ProviderResponseError('p', 'm'), true],
    [new Error('other'), false],
    ['text', false],
  ])('%s → %s', (error, expected) => {
    expect(isRetryableProviderError(error)).toBe(expected);
  });
});
