import { format } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox, secretBoxFromConfig } from '../../src/crypto/secret-box.ts';
import { apiKeyContext } from '../../src/db/repos/enrichment-settings.ts';
import { Agent, expectError } from '../support/agent.ts';
import { MAIL, startEnrichmentWorld, withFastProviders, type EnrichmentWorld } from '../support/enrichment/world.ts';
import { startHarness, type Harness } from '../support/harness.ts';

const PATH = '/api/settings/enrichment-providers';
/** The platform's PDL key is one PDL refuses: only an organization's own key gets through. */
const REFUSED_PLATFORM_KEY = 'pdl-platform-key-that-pdl-refuses-0001';
const ORG_LUSHA_KEY = 'lusha-org-own-key-never-shown-0001';

let world: EnrichmentWorld;
let h: Harness;
const written: string[] = [];
const restore: Array<() => void> = [];

beforeAll(async () => {
  // Everything the process writes (our JSON log lines, the Temporal worker's logger) is kept for the leak check.
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write.bind(stream);
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write;
    restore.push(() => (stream.write = original));
  }
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const original = console[level];
    console[level] = (...args: unknown[]) => {
      written.push(format(...args));
      original(...args);
    };
    restore.push(() => (console[level] = original));
  }
  world = await startEnrichmentWorld({ ipBase: 74 });
  h = await startHarness({ env: { ...world.env, PDL_API_KEY: REFUSED_PLATFORM_KEY, LOG_LEVEL: 'debug' }, worker: true, deps: withFastProviders });
});
afterAll(async () => {
  for (const undo of restore) undo();
  await h?.stop();
  await world?.stop();
});

const secrets = () => [world.providers.pdl.apiKey, world.providers.hunter.apiKey, world.providers.lusha.apiKey, REFUSED_PLATFORM_KEY, ORG_LUSHA_KEY];

describe('GET/PUT /api/settings/enrichment-providers', () => {
  it('lists every provider in the default order, enabled, on the platform keys: the finder first, needing no key', async () => {
    const { agent } = await h.signup();
    const res = await agent.get(PATH);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      providers: [
        { provider: 'finder', kind: 'finder', enabled: true, priority: 1, hasApiKey: false, hasPlatformKey: true },
        { provider: 'pdl', kind: 'person_enrichment', enabled: true, priority: 2, hasApiKey: false, hasPlatformKey: true },
        { provider: 'hunter', kind: 'email_discovery_verification', enabled: true, priority: 3, hasApiKey: false, hasPlatformKey: true },
        { provider: 'lusha', kind: 'business_email_phone', enabled: true, priority: 4, hasApiKey: false, hasPlatformKey: true },
      ],
    });
  });

  it('sets order, enabled flags and keys; keys are stored sealed and only ever reported as hasApiKey', async () => {
    const { agent, organizationId } = await h.signup();
    const res = await agent.put(PATH, {
      providers: [
        { provider: 'lusha', priority: 1, apiKey: ORG_LUSHA_KEY },
        { provider: 'hunter', enabled: false },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.providers.map((p: { provider: string; enabled: boolean; hasApiKey: boolean }) => [p.provider, p.enabled, p.hasApiKey])).toEqual([
      ['lusha', true, true],
      ['finder', true, false],
      ['pdl', true, false],
      ['hunter', false, false],
    ]);
    expect(res.text).not.toContain(ORG_LUSHA_KEY);
    expect((await agent.get(PATH)).body).toEqual(res.body);

    const [row] = await h.sql(`select api_key_ciphertext from enrichment_provider_setting where organization_id = ? and provider = 'lusha'`, [organizationId]);
    expect(row.api_key_ciphertext).toMatch(/^v1:/);
    expect(row.api_key_ciphertext).not.toContain(ORG_LUSHA_KEY);
    const box = secretBoxFromConfig(h.config);
    expect(box.decrypt(row.api_key_ciphertext, apiKeyContext(organizationId, 'lusha'))).toBe(ORG_LUSHA_KEY);
    // Bound to its row: another organization's context, or another key, does not open it.
    expect(() => box.decrypt(row.api_key_ciphertext, apiKeyContext(crypto.randomUUID(), 'lusha'))).toThrow(/could not be decrypted/);
    expect(() => new SecretBox(Buffer.alloc(32, 9)).decrypt(row.api_key_ciphertext, apiKeyContext(organizationId, 'lusha'))).toThrow(
      /could not be decrypted/,
    );

    // Omitted properties keep their value; null removes the key.
    const cleared = await agent.put(PATH, { providers: [{ provider: 'lusha', apiKey: null }] });
    expect(cleared.body.providers[0]).toMatchObject({ provider: 'lusha', priority: 1, hasApiKey: false });
    const untouched = await (await h.signup()).agent.get(PATH);
    expect(untouched.body.providers.map((p: { provider: string }) => p.provider)).toEqual(['finder', 'pdl', 'hunter', 'lusha']);
  });

  it('rejects malformed settings with 400 and anonymous callers with 401', async () => {
    const { agent } = await h.signup();
    for (const body of [
      {},
      { providers: [] },
      { providers: [{ provider: 'clearbit' }] },
      { providers: [{ provider: 'pdl' }, { provider: 'pdl', enabled: false }] },
      { providers: [{ provider: 'pdl', priority: 0 }] },
      { providers: [{ provider: 'pdl', apiKey: '' }] },
      { providers: [{ provider: 'pdl', apiKey: 42 }] },
      { providers: [{ provider: 'pdl', secret: 'x' }] },
      { providers: [{ provider: 'finder', apiKey: 'k' }] },
    ]) {
      expectError(await agent.put(PATH, body), 400, 'validation_error');
    }
    expectError(await new Agent(h.app).get(PATH), 401, 'unauthorized');
  });

  it('calls providers with the organization’s own key, else the platform key', async () => {
    const url = world.profile('own-key');
    const work = world.mailbox(MAIL.company);
    world.providers.pdl.fixtures.people.set(url, { first_name: 'Own', work_email: work });

    // The platform key is refused by PDL: the request fails with the provider's reason, never a key.
    const platform = await h.signup({ credits: 5 });
    const refused = await platform.agent.post('/api/enrichment/enrich', { networkUrl: url });
    expect(expectError(refused, 422, 'unprocessable').message).toMatch(/pdl rejected the API key/);

    const own = await h.signup({ credits: 5 });
    await own.agent.put(PATH, { providers: [{ provider: 'pdl', apiKey: world.providers.pdl.apiKey }] });
    world.providers.resetAll();
    const res = await own.agent.post('/api/enrichment/enrich', { networkUrl: url });
    expect(res.body).toMatchObject({ success: true, creditsUsed: 1, profile: { workEmail: work } });
    expect(world.providers.pdl.requests.map((r) => r.headers['x-api-key'])).toEqual([world.providers.pdl.apiKey]);

    // Lusha with a key it refuses (HTTP 200 with an error body): 422, and the key stays out of the answer.
    await own.agent.put(PATH, { providers: [{ provider: 'lusha', priority: 1, apiKey: ORG_LUSHA_KEY }] });
    const lusha = await own.agent.post('/api/enrichment/enrich', { networkUrl: world.profile('own-key') });
    expect(expectError(lusha, 422, 'unprocessable').message).toMatch(/lusha rejected the API key/);
    for (const secret of secrets()) expect(refused.text + res.text + lusha.text).not.toContain(secret);
  });

  it('no provider key ever appears in a log line', () => {
    const logged = written.join('');
    expect(logged).toContain('rejected the API key');
    for (const secret of secrets()) expect(logged).not.toContain(secret);
  });
});
