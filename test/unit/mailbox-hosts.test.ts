import { describe, expect, it } from 'vitest';
import type { RecordLookup } from '../../src/smtp/dns.ts';
import { MailboxHosts, type SignalResolver } from '../../src/smtp/mailbox-hosts.ts';

/** A resolver answering from a table (name → records, or 'fail'), counting what it is asked. */
function resolver(table: Record<string, string[] | 'fail'>) {
  const asked: string[] = [];
  const answer = (type: string) => async (name: string): Promise<RecordLookup> => {
    asked.push(`${type} ${name}`);
    const found = table[`${type} ${name}`];
    if (found === 'fail') return { kind: 'dns-error', reason: `${type} lookup for ${name} failed (ETIMEOUT)` };
    return { kind: 'records', records: found ?? [] };
  };
  const dns: SignalResolver = { lookupTxt: answer('TXT'), lookupCname: answer('CNAME'), lookupA: answer('A') };
  return { dns, asked };
}

const OPTIONS = { maxEntries: 2, ttlMs: 60_000, failedTtlMs: 1_000 };

describe('MailboxHosts', () => {
  it('asks nothing for a Google, Microsoft, Yahoo or Zoho MX host', async () => {
    const { dns, asked } = resolver({});
    const hosts = new MailboxHosts(dns, OPTIONS);
    for (const provider of ['google', 'microsoft', 'yahoo', 'zoho'] as const)
      await expect(hosts.of('acme.test', provider)).resolves.toEqual({ provider, signals: ['mx'] });
    expect(asked).toEqual([]);
    expect(hosts.size).toBe(0);
  });

  it('asks three names once per domain behind a gateway, concurrent callers sharing the lookup', async () => {
    const { dns, asked } = resolver({ 'TXT acme.test': ['v=spf1 include:spf.protection.outlook.com -all', 'other=1'] });
    const hosts = new MailboxHosts(dns, OPTIONS);
    const answers = await Promise.all([hosts.of('acme.test', 'other'), hosts.of('ACME.test', 'proofpoint'), hosts.of('acme.test', 'mimecast')]);
    expect(answers).toEqual(Array(3).fill({ provider: 'microsoft', signals: ['spf'] }));
    expect(asked.sort()).toEqual(['A acme-test.mail.protection.outlook.com', 'CNAME autodiscover.acme.test', 'TXT acme.test']);
  });

  it('forgets a domain after its time, and a failed lookup sooner', async () => {
    let now = 0;
    const { dns, asked } = resolver({ 'CNAME autodiscover.flaky.test': 'fail', 'A flaky-test.mail.protection.outlook.com': ['192.0.2.1'] });
    const hosts = new MailboxHosts(dns, { ...OPTIONS, now: () => now });
    await expect(hosts.of('flaky.test', 'other')).resolves.toEqual({ provider: 'microsoft', signals: ['eop'] });
    await expect(hosts.of('plain.test', 'other')).resolves.toEqual({ provider: 'other', signals: ['mx'] });
    expect(asked).toHaveLength(6);
    now = 999;
    await hosts.of('flaky.test', 'other');
    expect(asked).toHaveLength(6);
    now = 1_000;
    await hosts.of('flaky.test', 'other');
    expect(asked).toHaveLength(9);
    await hosts.of('plain.test', 'other');
    expect(asked).toHaveLength(9);
    now = 60_000;
    await hosts.of('plain.test', 'other');
    expect(asked).toHaveLength(12);
  });

  it('keeps at most maxEntries domains, dropping the oldest', async () => {
    const { dns, asked } = resolver({});
    const hosts = new MailboxHosts(dns, OPTIONS);
    for (const domain of ['a.test', 'b.test', 'c.test']) await hosts.of(domain, 'other');
    expect(hosts.size).toBe(2);
    expect(asked).toHaveLength(9);
    await hosts.of('c.test', 'other');
    await hosts.of('b.test', 'other');
    expect(asked).toHaveLength(9);
    await hosts.of('a.test', 'other');
    expect(asked).toHaveLength(12);
  });
});
