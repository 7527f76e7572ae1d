import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LushaProvider } from '../../src/providers/enrichment/lusha.ts';
import { ProviderAuthError, ProviderResponseError } from '../../src/providers/errors.ts';
import { startLushaServer, type LushaServer } from '../../src/sandbox/providers/lusha.ts';
import { FAST_TUNING, rejectionOf } from '../support/providers/tuning.ts';

const PROFILE = 'https://www.linkedin.com/in/janedoe';
let server: LushaServer;

beforeAll(async () => {
  server = await startLushaServer();
});
afterAll(() => server.close());
afterEach(() => {
  server.reset();
  server.fixtures.people.clear();
});

const provider = () => new LushaProvider({ ...FAST_TUNING, baseUrl: server.url });

describe('Lusha adapter', () => {
  it('looks the profile up with the api_key header and sorts emails by type, flagging do-not-call phones', async () => {
    server.fixtures.people.set('https://linkedin.com/in/janedoe/', {
      firstName: 'Jane',
      lastName: 'Doe',
      jobTitle: { title: 'VP Sales' },
      company: { name: 'Acme', fqdn: 'acme.com' },
      emailAddresses: [
        { email: 'jane@acme.com', emailType: 'work', emailConfidence: 'A+' },
        { email: 'jane.doe@gmail.com', emailType: 'personal' },
        { email: 'j@acme-holdings.com', emailType: 'other' },
      ],
      phoneNumbers: [
        { number: '+1 415-555-0100', phoneType: 'mobile', doNotCall: false },
        { number: '+1 415-555-0199', phoneType: 'direct', doNotCall: true },
      ],
    });
    const profile = await provider().enrich({ networkUrl: PROFILE }, server.apiKey);
    expect(profile).toEqual({
      firstName: 'Jane',
      lastName: 'Doe',
      title: 'VP Sales',
      company: 'Acme',
      companyDomain: 'acme.com',
      networkUrl: PROFILE,
      workEmails: [{ email: 'jane@acme.com' }, { email: 'j@acme-holdings.com' }],
      personalEmails: [{ email: 'jane.doe@gmail.com' }],
      phones: [
        { number: '+1 415-555-0100', flagged: false },
        { number: '+1 415-555-0199', flagged: true },
      ],
    });
    expect(server.requests[0]).toMatchObject({
      method: 'GET',
      path: '/v2/person',
      query: { linkedinUrl: PROFILE },
    });
    expect(server.requests[0]?.headers.api_key).toBe(server.apiKey);
  });

  it('answers null for a "not found" contact error', async () => {
    await expect(provider().enrich({ networkUrl: PROFILE }, server.apiKey)).resolves.toBeNull();
  });

  it('reports an invalid key (HTTP 200 contact.error) as ProviderAuthError without the key', async () => {
    const error = await rejectionOf(provider().enrich({ networkUrl: PROFILE }, 'lusha-bad-key'));
    expect(error).toBeInstanceOf(ProviderAuthError);
    expect((error as Error).message).toBe('lusha rejected the API key: Invalid API key');
    expect(String(error)).not.toContain('lusha-bad-key');
    expect(server.requests).toHaveLength(1);
  });

  it('rejects a malformed answer with ProviderResponseError', async () => {
    server.setMode({ kind: 'malformed', body: '{"data": {}}' });
    await expect(provider().enrich({ networkUrl: PROFILE }, server.apiKey)).rejects.toBeInstanceOf(
      ProviderResponseError,
    );
  });

  it('retries a 500 then answers', async () => {
    server.setMode({ kind: 'server-error' }, 1);
    await expect(provider().enrich({ networkUrl: PROFILE }, server.apiKey)).resolves.toBeNull();
    expect(server.requests).toHaveLength(2);
  });
});
