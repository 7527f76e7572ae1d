import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ProviderAuthError, ProviderResponseError } from '../../src/providers/errors.ts';
import { BraveProvider } from '../../src/providers/search/brave.ts';
import { SerperProvider } from '../../src/providers/search/serper.ts';
import { startBraveServer, type BraveServer } from '../../src/sandbox/providers/brave.ts';
import { startSerperServer, type SerperServer } from '../../src/sandbox/providers/serper.ts';
import { FAST_TUNING, rejectionOf } from '../support/providers/tuning.ts';

const QUERY = 'site:linkedin.com/in "Acme" "VP Sales"';
let serper: SerperServer;
let brave: BraveServer;

beforeAll(async () => {
  [serper, brave] = await Promise.all([startSerperServer(), startBraveServer()]);
});
afterAll(() => Promise.all([serper.close(), brave.close()]));
afterEach(() => {
  serper.reset();
  brave.reset();
  serper.fixtures.results.clear();
  brave.fixtures.results.clear();
});

describe('Serper adapter', () => {
  const provider = (apiKey = serper.apiKey) =>
    new SerperProvider({ ...FAST_TUNING, apiKey, baseUrl: serper.url });

  it('POSTs {q, num} with X-API-KEY and maps organic results to hits', async () => {
    serper.fixtures.results.set(QUERY, [
      {
        title: 'Jane Doe - VP Sales - Acme | LinkedIn',
        link: 'https://www.linkedin.com/in/janedoe',
        snippet: 'Acme',
      },
      { title: 'Acme | LinkedIn', link: 'https://www.linkedin.com/company/acme' },
    ]);
    const hits = await provider().search(QUERY, 5);
    expect(hits).toEqual([
      {
        title: 'Jane Doe - VP Sales - Acme | LinkedIn',
        url: 'https://www.linkedin.com/in/janedoe',
        snippet: 'Acme',
      },
      { title: 'Acme | LinkedIn', url: 'https://www.linkedin.com/company/acme', snippet: '' },
    ]);
    expect(serper.requests).toHaveLength(1);
    expect(serper.requests[0]).toMatchObject({ method: 'POST', path: '/search', body: { q: QUERY, num: 5 } });
    expect(serper.requests[0]?.headers['x-api-key']).toBe(serper.apiKey);
  });

  it('answers no hits for a query without results', async () => {
    await expect(provider().search('nothing', 10)).resolves.toEqual([]);
  });

  it('reports a bad key (403) as ProviderAuthError without the key', async () => {
    const error = await rejectionOf(provider('bad-serper-key').search(QUERY, 10));
    expect(error).toBeInstanceOf(ProviderAuthError);
    expect((error as Error).message).toBe('serper rejected the API key (HTTP 403): Unauthorized.');
    expect(String(error)).not.toContain('bad-serper-key');
    expect(serper.requests).toHaveLength(1);
  });

  it('reports a key revoked while running (bad-key mode) as ProviderAuthError', async () => {
    serper.setMode({ kind: 'bad-key' });
    await expect(provider().search(QUERY, 10)).rejects.toBeInstanceOf(ProviderAuthError);
    expect(serper.requests).toHaveLength(1);
  });

  it('retries a 429 and succeeds', async () => {
    serper.setMode({ kind: 'rate-limited', retryAfter: '0' }, 1);
    await expect(provider().search(QUERY, 10)).resolves.toEqual([]);
    expect(serper.requests).toHaveLength(2);
  });

  it('fails without a request when no key is configured', async () => {
    const unconfigured = new SerperProvider({ ...FAST_TUNING, baseUrl: serper.url });
    await expect(unconfigured.search(QUERY, 10)).rejects.toBeInstanceOf(ProviderAuthError);
    expect(serper.requests).toHaveLength(0);
  });
});

describe('Brave adapter', () => {
  const provider = (apiKey = brave.apiKey) =>
    new BraveProvider({ ...FAST_TUNING, apiKey, baseUrl: brave.url });

  it('GETs q and count with X-Subscription-Token and maps web results, markup removed', async () => {
    brave.fixtures.results.set(QUERY, [
      {
        title: 'Jane Doe - VP Sales - Acme &amp; Co | LinkedIn',
        url: 'https://uk.linkedin.com/in/janedoe',
        description: 'VP Sales at <strong>Acme</strong> &#39;24',
      },
    ]);
    const hits = await provider().search(QUERY, 10);
    expect(hits).toEqual([
      {
        title: 'Jane Doe - VP Sales - Acme & Co | LinkedIn',
        url: 'https://uk.linkedin.com/in/janedoe',
        snippet: "VP Sales at Acme '24",
      },
    ]);
    expect(brave.requests[0]).toMatchObject({
      method: 'GET',
      path: '/res/v1/web/search',
      query: { q: QUERY, count: '10' },
    });
    expect(brave.requests[0]?.headers['x-subscription-token']).toBe(brave.apiKey);
  });

  it('asks for at most 20 results, the API maximum', async () => {
    await provider().search(QUERY, 50);
    expect(brave.requests[0]?.query.count).toBe('20');
  });

  it('answers no hits when the response has no web section', async () => {
    await expect(provider().search('nothing', 10)).resolves.toEqual([]);
  });

  it('reports an invalid subscription token (422) as ProviderAuthError without the token', async () => {
    const error = await rejectionOf(provider('bad-brave-token').search(QUERY, 10));
    expect(error).toBeInstanceOf(ProviderAuthError);
    expect((error as Error).message).toBe('brave rejected the API key: SUBSCRIPTION_TOKEN_INVALID');
    expect(String(error)).not.toContain('bad-brave-token');
  });

  it('rejects a malformed answer with ProviderResponseError', async () => {
    brave.setMode({ kind: 'malformed', body: '{"web": {"results": [{"title": 1}]}}' });
    await expect(provider().search(QUERY, 10)).rejects.toBeInstanceOf(ProviderResponseError);
  });
});
