import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HunterProvider } from '../../src/providers/enrichment/hunter.ts';
import { ProviderAuthError, ProviderUnavailableError } from '../../src/providers/errors.ts';
import { hunterPersonKey, startHunterServer, type HunterServer } from '../../src/sandbox/providers/hunter.ts';
import { FAST_TUNING, rejectionOf } from '../support/providers/tuning.ts';

const PROFILE = 'https://www.linkedin.com/in/janedoe';
let server: HunterServer;

beforeAll(async () => {
  server = await startHunterServer();
});
afterAll(() => server.close());
afterEach(() => {
  server.reset();
  server.fixtures.findings.clear();
  server.fixtures.verdicts.clear();
});

const provider = () =>
  new HunterProvider({ ...FAST_TUNING, baseUrl: server.url, pendingAttempts: 3, pendingDelayMs: 5 });

describe('Hunter adapter: email finder', () => {
  it('finds a work email by name and domain, verified when Hunter says valid', async () => {
    server.fixtures.findings.set(hunterPersonKey('Jane', 'Doe', 'acme.com'), {
      email: 'jane.doe@acme.com',
      position: 'VP Sales',
      company: 'Acme',
      verification: 'valid',
    });
    const profile = await provider().enrich(
      {
        networkUrl: PROFILE,
        firstName: 'Jane',
        lastName: 'Doe',
        companyDomain: 'acme.com',
        company: 'Acme Inc',
      },
      server.apiKey,
    );
    expect(profile).toEqual({
      firstName: 'Jane',
      lastName: 'Doe',
      title: 'VP Sales',
      company: 'Acme',
      companyDomain: 'acme.com',
      networkUrl: PROFILE,
      workEmails: [{ email: 'jane.doe@acme.com', verified: true }],
      personalEmails: [],
      phones: [],
    });
    expect(server.requests[0]).toMatchObject({
      path: '/v2/email-finder',
      query: { domain: 'acme.com', first_name: 'Jane', last_name: 'Doe', api_key: server.apiKey },
    });
    expect(server.requests[0]?.query.company).toBeUndefined();
  });

  it('uses the company name when no domain is known; unverified finds are not marked verified', async () => {
    server.fixtures.findings.set(hunterPersonKey('Jane', 'Doe', 'Acme'), {
      email: 'jd@acme.com',
      verification: null,
    });
    const profile = await provider().enrich(
      { networkUrl: PROFILE, firstName: 'Jane', lastName: 'Doe', company: 'Acme' },
      server.apiKey,
    );
    expect(profile?.workEmails).toEqual([{ email: 'jd@acme.com', verified: false }]);
    expect(server.requests[0]?.query).toMatchObject({ company: 'Acme' });
  });

  it('answers null when Hunter finds no email', async () => {
    const lookup = { networkUrl: PROFILE, firstName: 'No', lastName: 'Body', companyDomain: 'acme.com' };
    await expect(provider().enrich(lookup, server.apiKey)).resolves.toBeNull();
  });

  it.each([
    [{ networkUrl: PROFILE }],
    [{ networkUrl: PROFILE, firstName: 'Jane', companyDomain: 'acme.com' }],
    [{ networkUrl: PROFILE, firstName: 'Jane', lastName: 'Doe' }],
    [{ networkUrl: PROFILE, firstName: ' ', lastName: 'Doe', company: 'Acme' }],
  ])('answers null without a request when the lookup lacks a name or company: %j', async (lookup) => {
    await expect(provider().enrich(lookup, server.apiKey)).resolves.toBeNull();
    expect(server.requests).toHaveLength(0);
  });

  it('reports a bad key (401) as ProviderAuthError without the key, even though the key is in the URL', async () => {
    const error = await rejectionOf(
      provider().enrich(
        { networkUrl: PROFILE, firstName: 'Jane', lastName: 'Doe', companyDomain: 'acme.com' },
        'hunter-bad-key',
      ),
    );
    expect(error).toBeInstanceOf(ProviderAuthError);
    expect((error as Error).message).toBe(
      'hunter rejected the API key (HTTP 401): No user found for the API key supplied',
    );
    expect(String(error)).not.toContain('hunter-bad-key');
  });

  it('treats 403 as Hunter throttling: retried, then succeeds', async () => {
    server.setMode({ kind: 'rate-limited', status: 403 }, 1);
    const lookup = { networkUrl: PROFILE, firstName: 'No', lastName: 'Body', companyDomain: 'acme.com' };
    await expect(provider().enrich(lookup, server.apiKey)).resolves.toBeNull();
    expect(server.requests).toHaveLength(2);
  });
});

describe('Hunter adapter: email verifier', () => {
  it.each([
    ['valid', 'Valid'],
    ['invalid', 'Invalid'],
    ['accept_all', 'Catch-All'],
    ['webmail', 'Unknown'],
    ['disposable', 'Unknown'],
    ['unknown', 'Unknown'],
  ] as const)('maps %s → %s', async (status, result) => {
    server.fixtures.verdicts.set('jane@acme.com', status);
    await expect(provider().verifyEmail('jane@acme.com', server.apiKey)).resolves.toBe(result);
    expect(server.requests[0]).toMatchObject({
      path: '/v2/email-verifier',
      query: { email: 'jane@acme.com', api_key: server.apiKey },
    });
  });

  it('repeats a 202 (still processing) and returns the settled verdict', async () => {
    server.fixtures.verdicts.set('jane@acme.com', 'valid');
    server.setMode({ kind: 'pending' }, 2);
    await expect(provider().verifyEmail('jane@acme.com', server.apiKey)).resolves.toBe('Valid');
    expect(server.requests).toHaveLength(3);
  });

  it('gives up on a 202 that persists with ProviderUnavailableError', async () => {
    server.setMode({ kind: 'pending' });
    const error = await rejectionOf(provider().verifyEmail('jane@acme.com', server.apiKey));
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect((error as Error).message).toBe(
      'hunter was still processing the request (HTTP 202) after 3 attempts',
    );
    expect(server.requests).toHaveLength(3);
  });
});
