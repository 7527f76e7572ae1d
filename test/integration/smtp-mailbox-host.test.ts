import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SmtpProber } from '../../src/smtp/prober.ts';
import { type MailWorld, startMailWorld } from '../support/mail-world/index.ts';
import {
  MAILBOX_HOST_DOMAINS,
  MAILBOX_HOST_EXPECTATIONS,
  mailboxHostWorld,
  signalQueriesOf,
} from '../support/mail-world/mailbox-host-world.ts';
import { testProber } from '../support/mail-world/prober.ts';

// Who hosts the mailboxes (CONTRACT §12), as the prober finds it: the MX name, or DNS behind a gateway.
let world: MailWorld;
let prober: SmtpProber;

beforeAll(async () => {
  const base = mailboxHostWorld();
  world = await startMailWorld({
    domains: {
      ...base.domains,
      // SPF says Microsoft 365; its autodiscover name fails to resolve: no signal from it, and nothing else lost.
      'flaky.test': { mx: [{ host: 'mx.flaky.test', preference: 10, ip: '127.0.29.8', behaviour: { catchAll: true } }] },
      'autodiscover.flaky.test': { servfail: true },
    },
    records: { ...base.records, 'flaky.test': { txt: ['v=spf1 include:spf.protection.outlook.com -all'] } },
  });
  prober = testProber(world);
});
afterAll(() => world?.stop());

const count = (query: string) => world.dnsQueries.filter((q) => q === query).length;

describe('SmtpProber: who hosts the mailboxes', () => {
  it.each(MAILBOX_HOST_DOMAINS)('%s: every outcome carries the mailbox host and what showed it', async (domain) => {
    const expected = MAILBOX_HOST_EXPECTATIONS[domain];
    const seen: unknown[] = [];
    const emails = [`user0@${domain}`, `nobody@${domain}`];
    const outcome = await prober.probeDomain(domain, emails, { onResult: (o) => seen.push(o) });
    const fields = { mxProvider: expected.mxProvider, mailboxProvider: expected.mailboxProvider, mailboxProviderSignals: expected.signals };
    for (const o of outcome.outcomes) expect(o).toMatchObject({ source: 'smtp', ...fields });
    // What onResult saw as each address became final carries it too.
    expect(seen).toHaveLength(emails.length);
    for (const o of seen) expect(o).toMatchObject(fields);

    // Asked again (a next page, another job): DNS is not asked again.
    await prober.probeDomain(domain, [`another@${domain}`]);
    for (const query of signalQueriesOf(domain)) expect(count(query), query).toBe(expected.looksBehind ? 1 : 0);
  });

  it('a lookup that fails gives no signal and fails nothing', async () => {
    const outcome = await prober.probeDomain('flaky.test', ['a@flaky.test']);
    expect(outcome.outcomes[0]).toMatchObject({ result: 'Catch-All', mailboxProvider: 'microsoft', mailboxProviderSignals: ['spf'] });
    expect(count('CNAME autodiscover.flaky.test')).toBeGreaterThan(0);
  });

  it('precheck outcomes (no SMTP) carry none', async () => {
    const outcome = await prober.probeDomain('nxdomain.test', ['a@nxdomain.test', 'not an address']);
    for (const o of outcome.outcomes) expect(o).toMatchObject({ source: 'precheck', mailboxProvider: null, mailboxProviderSignals: [] });
  });

  it('mailboxHostOf answers a caller that did not probe, from the same remembered lookup', async () => {
    await expect(prober.mailboxHostOf('m365-eop.test', 'm365-eop-test.mimecast.com')).resolves.toEqual({
      provider: 'microsoft',
      signals: ['eop'],
    });
    expect(count('A m365-eop-test.mail.protection.outlook.com')).toBe(1);
    // A Microsoft MX host decides without DNS.
    await expect(prober.mailboxHostOf('Elsewhere.test', 'elsewhere-test.j-v1.mx.microsoft')).resolves.toEqual({
      provider: 'microsoft',
      signals: ['mx'],
    });
    expect(world.dnsQueries.filter((q) => q.endsWith('elsewhere.test') || q.includes('elsewhere-test'))).toEqual([]);
  });
});
