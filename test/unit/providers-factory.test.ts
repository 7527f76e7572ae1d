import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createEnrichmentProviders } from '../../src/providers/enrichment/index.ts';
import { createSearchProvider } from '../../src/providers/search/index.ts';
import { createVerificationProvider } from '../../src/providers/verification/index.ts';
import { hunterPersonKey, startProviderServers, type ProviderServers } from '../support/providers/index.ts';
import { FAST_TUNING } from '../support/providers/tuning.ts';

let servers: ProviderServers;

beforeAll(async () => {
  servers = await startProviderServers();
});
afterAll(() => servers.close());

/** The service configuration as the worker would load it, pointed at the stand-ins. */
const config = (extra: Record<string, string> = {}) =>
  loadConfig({ ...servers.urls, ...servers.keys, NODE_ENV: 'test', ...extra });

describe('provider factories built from the service configuration', () => {
  it('verification: ZeroBounce by default, Reacher when configured', async () => {
    servers.zerobounce.fixtures.verdicts.set('a@acme.com', { status: 'valid' });
    const zerobounce = createVerificationProvider(config(), FAST_TUNING);
    expect([zerobounce.name, zerobounce.maxBatch]).toEqual(['zerobounce', 200]);
    await expect(zerobounce.verify(['a@acme.com'])).resolves.toEqual([
      { email: 'a@acme.com', result: 'Valid', reason: 'valid' },
    ]);

    servers.reacher.fixtures.outcomes.set('a@acme.com', { is_reachable: 'invalid' });
    const reacher = createVerificationProvider(config({ VERIFICATION_PROVIDER: 'reacher' }), FAST_TUNING);
    expect(reacher.name).toBe('reacher');
    await expect(reacher.verify(['a@acme.com'])).resolves.toEqual([
      { email: 'a@acme.com', result: 'Invalid', reason: 'invalid' },
    ]);
  });

  it('search: Serper by default, Brave when configured', async () => {
    const q = 'site:linkedin.com/in "Acme"';
    servers.serper.fixtures.results.set(q, [
      { title: 'Jane Doe - Acme | LinkedIn', link: 'https://www.linkedin.com/in/jane' },
    ]);
    servers.brave.fixtures.results.set(q, [
      { title: 'John Roe - Acme | LinkedIn', url: 'https://www.linkedin.com/in/john' },
    ]);

    const serper = createSearchProvider(config(), FAST_TUNING);
    expect(serper.name).toBe('serper');
    expect((await serper.search(q, 10)).map((hit) => hit.url)).toEqual(['https://www.linkedin.com/in/jane']);

    const brave = createSearchProvider(config({ SEARCH_PROVIDER: 'brave' }), FAST_TUNING);
    expect(brave.name).toBe('brave');
    expect((await brave.search(q, 10)).map((hit) => hit.url)).toEqual(['https://www.linkedin.com/in/john']);
  });

  it('enrichment: one adapter per provider, keys passed per call', async () => {
    const profile = 'https://www.linkedin.com/in/jane';
    servers.pdl.fixtures.people.set(profile, { first_name: 'jane', work_email: 'jane@acme.com' });
    servers.lusha.fixtures.people.set(profile, {
      firstName: 'Jane',
      emailAddresses: [{ email: 'jane@gmail.com', emailType: 'personal' }],
    });
    servers.hunter.fixtures.findings.set(hunterPersonKey('Jane', 'Doe', 'acme.com'), {
      email: 'jane@acme.com',
      verification: 'valid',
    });
    servers.hunter.fixtures.verdicts.set('jane@acme.com', 'accept_all');

    const { keys } = servers;
    const providers = createEnrichmentProviders(config(), FAST_TUNING);
    expect(Object.keys(providers).sort()).toEqual(['hunter', 'lusha', 'pdl']);
    expect((await providers.pdl.enrich({ networkUrl: profile }, keys.PDL_API_KEY))?.workEmails).toEqual([
      { email: 'jane@acme.com' },
    ]);
    expect(
      (await providers.lusha.enrich({ networkUrl: profile }, keys.LUSHA_API_KEY))?.personalEmails,
    ).toEqual([{ email: 'jane@gmail.com' }]);
    const lookup = { networkUrl: profile, firstName: 'Jane', lastName: 'Doe', companyDomain: 'acme.com' };
    expect((await providers.hunter.enrich(lookup, keys.HUNTER_API_KEY))?.workEmails).toEqual([
      { email: 'jane@acme.com', verified: true },
    ]);
    expect(providers.pdl.verifyEmail).toBeUndefined();
    await expect(providers.hunter.verifyEmail?.('jane@acme.com', keys.HUNTER_API_KEY)).resolves.toBe(
      'Catch-All',
    );
  });
});
