import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PdlProvider } from '../../src/providers/enrichment/pdl.ts';
import { ProviderAuthError, ProviderRateLimitError } from '../../src/providers/errors.ts';
import { startPdlServer, type PdlServer } from '../../src/sandbox/providers/pdl.ts';
import { FAST_TUNING, rejectionOf } from '../support/providers/tuning.ts';

const PROFILE = 'https://www.linkedin.com/in/seanthorne';
let server: PdlServer;

beforeAll(async () => {
  server = await startPdlServer();
});
afterAll(() => server.close());
afterEach(() => {
  server.reset();
  server.fixtures.people.clear();
});

const provider = () => new PdlProvider({ ...FAST_TUNING, baseUrl: server.url });

describe('PDL adapter', () => {
  it('looks the profile up with X-Api-Key and maps names, job, emails and phones', async () => {
    server.fixtures.people.set('linkedin.com/in/seanthorne', {
      first_name: 'sean',
      last_name: 'thorne',
      job_title: 'co-founder and chief executive officer',
      job_company_name: 'people data labs',
      job_company_website: 'peopledatalabs.com',
      work_email: 'sean@peopledatalabs.com',
      personal_emails: ['sthorne@gmail.com', 'STHORNE@gmail.com', 'sean.t@yahoo.com'],
      mobile_phone: '+14155688415',
      phone_numbers: ['+14155688415', '+14155550100'],
    });
    const profile = await provider().enrich({ networkUrl: PROFILE }, server.apiKey);
    expect(profile).toEqual({
      firstName: 'Sean',
      lastName: 'Thorne',
      title: 'co-founder and chief executive officer',
      company: 'people data labs',
      companyDomain: 'peopledatalabs.com',
      networkUrl: PROFILE,
      workEmails: [{ email: 'sean@peopledatalabs.com' }],
      personalEmails: [{ email: 'sthorne@gmail.com' }, { email: 'sean.t@yahoo.com' }],
      phones: [{ number: '+14155688415' }, { number: '+14155550100' }],
    });
    expect(server.requests[0]).toMatchObject({
      method: 'GET',
      path: '/v5/person/enrich',
      query: { profile: PROFILE },
    });
    expect(server.requests[0]?.headers['x-api-key']).toBe(server.apiKey);
  });

  it('ignores contact fields the plan only reports as present (true) instead of their value', async () => {
    server.fixtures.people.set(PROFILE, {
      first_name: 'Sean',
      work_email: true,
      personal_emails: true,
      mobile_phone: true,
      phone_numbers: false,
    });
    const profile = await provider().enrich({ networkUrl: PROFILE }, server.apiKey);
    expect(profile).toMatchObject({ firstName: 'Sean', workEmails: [], personalEmails: [], phones: [] });
  });

  it('answers null on 404 (no match)', async () => {
    await expect(
      provider().enrich({ networkUrl: 'https://www.linkedin.com/in/nobody' }, server.apiKey),
    ).resolves.toBeNull();
    expect(server.requests).toHaveLength(1);
  });

  it('reports a bad key (401) as ProviderAuthError without the key', async () => {
    const error = await rejectionOf(provider().enrich({ networkUrl: PROFILE }, 'pdl-wrong-key'));
    expect(error).toBeInstanceOf(ProviderAuthError);
    expect((error as Error).message).toBe('pdl rejected the API key (HTTP 401): Invalid API Key');
    expect(String(error)).not.toContain('pdl-wrong-key');
    expect(server.requests).toHaveLength(1);
  });

  it('retries a 500 then succeeds', async () => {
    server.setMode({ kind: 'server-error', status: 502 }, 1);
    await expect(provider().enrich({ networkUrl: PROFILE }, server.apiKey)).resolves.toBeNull();
    expect(server.requests).toHaveLength(2);
  });

  it('passes a long Retry-After on as ProviderRateLimitError', async () => {
    server.setMode({ kind: 'rate-limited', retryAfter: '60' });
    const error = await rejectionOf(provider().enrich({ networkUrl: PROFILE }, server.apiKey));
    expect(error).toBeInstanceOf(ProviderRateLimitError);
    expect((error as ProviderRateLimitError).retryAfterMs).toBe(60_000);
  });

  it('fails without a request when the key is empty', async () => {
    await expect(provider().enrich({ networkUrl: PROFILE }, '')).rejects.toBeInstanceOf(ProviderAuthError);
    expect(server.requests).toHaveLength(0);
  });
});
