import { describe, expect, it } from 'vitest';
import {
  autodiscoverNameOf,
  eopHostOf,
  isGateway,
  isSpfRecord,
  type MailboxDnsFacts,
  mailboxHostOf,
  NO_MAILBOX_DNS_FACTS,
} from '../../src/domain/mailbox-provider.ts';
import { MX_PROVIDERS } from '../../src/domain/mx-provider.ts';

const facts = (partial: Partial<MailboxDnsFacts>): MailboxDnsFacts => ({ ...NO_MAILBOX_DNS_FACTS, ...partial });
const M365_SPF = 'v=spf1 include:spf.protection.outlook.com -all';
const GOOGLE_SPF = 'v=spf1 include:_spf.google.com ~all';

describe('mailboxHostOf', () => {
  it.each(['google', 'microsoft', 'yahoo', 'zoho'] as const)('a %s MX host is the mailbox host (mx), whatever DNS says', (provider) => {
    expect(isGateway(provider)).toBe(false);
    const everything = facts({ spf: [M365_SPF], autodiscover: ['autodiscover.outlook.com'], eop: true });
    expect(mailboxHostOf(provider, everything)).toEqual({ provider, signals: ['mx'] });
  });

  it.each(['proofpoint', 'mimecast', 'other'] as const)('a %s MX host with nothing behind it is the mailbox host (mx)', (provider) => {
    expect(isGateway(provider)).toBe(true);
    expect(mailboxHostOf(provider)).toEqual({ provider, signals: ['mx'] });
    expect(mailboxHostOf(provider, facts({ spf: ['v=spf1 mx -all'], autodiscover: ['autodiscover.acme.test'] }))).toEqual({
      provider,
      signals: ['mx'],
    });
  });

  it('every provider but the gateways is decided by its MX name alone', () => {
    expect(MX_PROVIDERS.filter(isGateway)).toEqual(['proofpoint', 'mimecast', 'other']);
  });

  describe('Microsoft 365 behind a gateway', () => {
    it('spf: SPF includes spf.protection.outlook.com (any case, a qualifier, a trailing dot)', () => {
      for (const record of [M365_SPF, 'V=SPF1 ip4:192.0.2.1 ~INCLUDE:SPF.Protection.Outlook.com. -all', 'v=spf1 +include:spf.protection.outlook.com']) {
        expect(mailboxHostOf('proofpoint', facts({ spf: [record] }))).toEqual({ provider: 'microsoft', signals: ['spf'] });
      }
    });

    it('autodiscover: autodiscover.<domain> is a CNAME to autodiscover.outlook.com', () => {
      expect(mailboxHostOf('mimecast', facts({ autodiscover: ['Autodiscover.Outlook.com.'] }))).toEqual({
        provider: 'microsoft',
        signals: ['autodiscover'],
      });
    });

    it('eop: the domain\'s mail.protection.outlook.com host resolves', () => {
      expect(mailboxHostOf('other', facts({ eop: true }))).toEqual({ provider: 'microsoft', signals: ['eop'] });
    });

    it('lists every signal that showed it, in the contract\'s order', () => {
      expect(
        mailboxHostOf('proofpoint', facts({ spf: [M365_SPF], autodiscover: ['autodiscover.outlook.com'], eop: true })),
      ).toEqual({ provider: 'microsoft', signals: ['spf', 'autodiscover', 'eop'] });
    });

    it('an SPF naming Google too still counts once another signal points at Microsoft', () => {
      const both = 'v=spf1 include:_spf.google.com include:spf.protection.outlook.com -all';
      expect(mailboxHostOf('other', facts({ spf: [both], eop: true }))).toEqual({ provider: 'microsoft', signals: ['spf', 'eop'] });
    });
  });

  describe('Google Workspace behind a gateway', () => {
    it('spf: SPF includes _spf.google.com', () => {
      expect(mailboxHostOf('other', facts({ spf: [GOOGLE_SPF] }))).toEqual({ provider: 'google', signals: ['spf'] });
      expect(mailboxHostOf('proofpoint', facts({ spf: ['v=spf1 include:_SPF.GOOGLE.COM. -all'] }))).toEqual({
        provider: 'google',
        signals: ['spf'],
      });
    });
  });

  it('an SPF naming both providers and nothing else says neither: the MX provider stays', () => {
    const both = 'v=spf1 include:_spf.google.com include:spf.protection.outlook.com -all';
    expect(mailboxHostOf('mimecast', facts({ spf: [both] }))).toEqual({ provider: 'mimecast', signals: ['mx'] });
  });

  it('what only resembles a signal is none', () => {
    const lookalikes = facts({
      spf: [
        // Not SPF records: another TXT, and a version tag that runs on.
        'include:spf.protection.outlook.com',
        'v=spf10 include:spf.protection.outlook.com',
        // A denied include, a redirect, and a host that only ends the same way.
        'v=spf1 -include:spf.protection.outlook.com',
        'v=spf1 redirect=_spf.google.com',
        'v=spf1 include:evilspf.protection.outlook.com.example include:not_spf.google.com',
      ],
      autodiscover: ['autodiscover.outlook.com.example', 'autodiscover.acme.test'],
    });
    expect(mailboxHostOf('other', lookalikes)).toEqual({ provider: 'other', signals: ['mx'] });
  });
});

describe('the names DNS is asked', () => {
  it('the EOP host has the domain\'s dots as dashes', () => {
    expect(eopHostOf('Contoso.co.uk.')).toBe('contoso-co-uk.mail.protection.outlook.com');
    expect(eopHostOf('acme.test')).toBe('acme-test.mail.protection.outlook.com');
  });

  it('autodiscover sits under the domain', () => {
    expect(autodiscoverNameOf('Acme.Test')).toBe('autodiscover.acme.test');
  });

  it('SPF records are told from other TXT records by their version tag', () => {
    expect(isSpfRecord('v=spf1 -all')).toBe(true);
    expect(isSpfRecord('v=spf1')).toBe(true);
    expect(isSpfRecord('google-site-verification=abc')).toBe(false);
    expect(isSpfRecord('v=spf2.0/pra include:x')).toBe(false);
  });
});
