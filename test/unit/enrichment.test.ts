import { describe, expect, it } from 'vitest';
import { SecretBox, SecretDecryptionError } from '../../src/crypto/secret-box.ts';
import { mergeCacheEntry, type CachedProfile } from '../../src/enrichment/repository-profiles.ts';
import { CREDIT_PRICES, creditsPerProfile, estimateCredits, orderedFields } from '../../src/domain/enrichment.ts';
import { EmailChecker } from '../../src/enrichment/engine-email-checker.ts';
import { domainFromWebsite } from '../../src/enrichment/engine-waterfall.ts';
import type { EnrichmentProvider } from '../../src/providers/enrichment/index.ts';
import type { DomainOutcome } from '../../src/smtp/prober.ts';

describe('credit rules', () => {
  it('prices 1 per email and 2 per phone, in charging order', () => {
    expect(creditsPerProfile(['workEmail', 'personalEmail', 'phone'])).toBe(4);
    expect(creditsPerProfile(['phone', 'phone'])).toBe(2);
    expect(CREDIT_PRICES).toEqual({ workEmail: 1, personalEmail: 1, phone: 2 });
    expect(creditsPerProfile([])).toBe(0);
    expect(orderedFields(['phone', 'workEmail', 'phone'])).toEqual(['workEmail', 'phone']);
  });

  it('estimates a bulk job as the upper bound: leads × credits of the requested fields', () => {
    expect(estimateCredits(120, ['workEmail', 'personalEmail', 'phone'])).toBe(480);
    expect(estimateCredits(120, ['workEmail', 'phone'])).toBe(360);
    expect(estimateCredits(0, ['phone'])).toBe(0);
  });
});

describe('SecretBox', () => {
  const box = new SecretBox(Buffer.alloc(32, 1));

  it('round-trips with a fresh IV each time and never shows the plaintext', () => {
    const a = box.encrypt('pdl-key-123', 'org:1:pdl');
    const b = box.encrypt('pdl-key-123', 'org:1:pdl');
    expect(a).not.toBe(b);
    expect(a).not.toContain('pdl-key-123');
    expect(a).toMatch(/^v1:[\w-]+:[\w-]+:[\w-]+$/);
    expect(box.decrypt(a, 'org:1:pdl')).toBe('pdl-key-123');
  });

  it('refuses a wrong context, a wrong key and a tampered ciphertext', () => {
    const sealed = box.encrypt('secret', 'org:1:pdl');
    expect(() => box.decrypt(sealed, 'org:2:pdl')).toThrow(SecretDecryptionError);
    expect(() => new SecretBox(Buffer.alloc(32, 2)).decrypt(sealed, 'org:1:pdl')).toThrow(SecretDecryptionError);
    const parts = sealed.split(':');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => box.decrypt(parts.join(':'), 'org:1:pdl')).toThrow(SecretDecryptionError);
    expect(() => box.decrypt('garbage', 'org:1:pdl')).toThrow(SecretDecryptionError);
    expect(() => new SecretBox(Buffer.alloc(16))).toThrow(RangeError);
  });
});

describe('mergeCacheEntry', () => {
  const now = new Date('2026-11-20T12:00:00Z');
  const fresh: CachedProfile = {
    networkUrl: 'https://www.linkedin.com/in/a',
    firstName: 'Ann',
    lastName: null,
    title: null,
    company: 'Acme',
    values: { workEmail: 'ann@acme.com' },
    searched: ['workEmail', 'phone'],
    paidAt: new Date('2026-11-01T00:00:00Z'),
  };

  it('starts an entry only with a payment', () => {
    const update = { networkUrl: fresh.networkUrl, person: { firstName: 'Ann' }, values: {}, searched: ['workEmail' as const], paid: false };
    expect(mergeCacheEntry(undefined, update, now)).toBeNull();
    expect(mergeCacheEntry(undefined, { ...update, values: { workEmail: 'a@b.c' }, paid: true }, now)).toMatchObject({
      values: { workEmail: 'a@b.c' },
      searched: ['workEmail'],
      paidAt: now,
    });
  });

  it('adds values and settled fields to a fresh entry; only a payment restarts its window', () => {
    const unpaid = mergeCacheEntry(fresh, { networkUrl: fresh.networkUrl, person: { lastName: 'Lee' }, values: {}, searched: ['personalEmail'], paid: false }, now);
    expect(unpaid).toMatchObject({ lastName: 'Lee', firstName: 'Ann', searched: ['workEmail', 'personalEmail', 'phone'], paidAt: fresh.paidAt });
    const paid = mergeCacheEntry(fresh, { networkUrl: fresh.networkUrl, person: {}, values: { personalEmail: 'ann@home.net' }, searched: ['personalEmail'], paid: true }, now);
    expect(paid).toMatchObject({ values: { workEmail: 'ann@acme.com', personalEmail: 'ann@home.net' }, paidAt: now });
  });
});

describe('domainFromWebsite', () => {
  it.each([
    ['https://www.Acme.com/about', 'acme.com'],
    ['acme.co.uk', 'acme.co.uk'],
    ['http://shop.acme.com:8080/x?y', 'shop.acme.com'],
    ['localhost', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%j → %j', (raw, expected) => expect(domainFromWebsite(raw)).toBe(expected));
});

describe('EmailChecker', () => {
  function fakeProber(results: Record<string, DomainOutcome['outcomes'][number]['result']>) {
    const calls: Array<{ domain: string; emails: readonly string[] }> = [];
    return {
      calls,
      async probeDomain(domain: string, emails: readonly string[]): Promise<DomainOutcome> {
        calls.push({ domain, emails });
        await new Promise((r) => setTimeout(r, 5));
        return {
          domain,
          isCatchAll: false,
          mxHost: `mx.${domain}`,
          outcomes: emails.map((email) => ({
            email,
            result: results[email] ?? 'Invalid',
            source: 'smtp' as const,
            reason: '',
            smtpCode: null,
            enhancedCode: null,
            attempts: 1,
            transcript: [],
            mxHost: `mx.${domain}`,
            mxProvider: 'other' as const,
            mailboxProvider: 'other' as const,
            mailboxProviderSignals: ['mx' as const],
            flags: { disposable: false, role: false, free: false },
          })),
        };
      },
    };
  }

  it('probes the addresses of one domain asked for together in one session, and each address once', async () => {
    const prober = fakeProber({ 'a@x.test': 'Valid', 'c@x.test': 'Valid' });
    const checker = new EmailChecker(prober);
    const verdicts = await Promise.all(['a@x.test', 'b@x.test', 'c@x.test', 'a@x.test', 'd@y.test'].map((e) => checker.isVerified(e)));
    expect(verdicts).toEqual([true, false, true, true, false]);
    expect(prober.calls).toEqual([
      { domain: 'x.test', emails: ['a@x.test', 'b@x.test', 'c@x.test'] },
      { domain: 'y.test', emails: ['d@y.test'] },
    ]);
    expect(await checker.isVerified('b@x.test', true)).toBe(true);
    expect(prober.calls).toHaveLength(2);
  });

  it('asks the verifier only when SMTP cannot tell (Catch-All, Unknown), never for Invalid', async () => {
    const asked: string[] = [];
    const hunter = {
      name: 'hunter',
      enrich: async () => null,
      verifyEmail: async (email: string) => {
        asked.push(email);
        return email.startsWith('ok') ? ('Valid' as const) : ('Catch-All' as const);
      },
    } satisfies EnrichmentProvider;
    const checker = new EmailChecker(fakeProber({ 'ok@c.test': 'Catch-All', 'no@c.test': 'Unknown', 'bad@c.test': 'Invalid' }), { provider: hunter, apiKey: 'k' });
    expect(await checker.isVerified('ok@c.test')).toBe(true);
    expect(await checker.isVerified('no@c.test')).toBe(false);
    expect(await checker.isVerified('bad@c.test')).toBe(false);
    expect(asked).toEqual(['ok@c.test', 'no@c.test']);
  });
});
