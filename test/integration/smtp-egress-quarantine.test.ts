import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerOfHost } from '../../src/domain/mx-provider.ts';
import { quarantineKey } from '../../src/smtp/egress-quarantine.ts';
import { EGRESS_BLOCK_REPLIES } from '../support/egress-block-replies.ts';
import type { DomainSpec, MailWorld } from '../support/mail-world/index.ts';
import { startMailWorld } from '../support/mail-world/index.ts';
import { hostOf, testProber } from '../support/mail-world/prober.ts';

/**
 * CONTRACT §13: a reply that blames the egress quarantines that egress for the host's provider only; the
 * addresses are answered through the other egress, never made Invalid by the block. Two source addresses:
 * 127.0.0.2 (refused by each row's host, and the one an idle prober picks first) and 127.0.0.3.
 */
const REFUSED = '127.0.0.2';
const OTHER = '127.0.0.3';
// The mail world sends one reply at connect, MAIL or RCPT; an EHLO refusal takes the connect path (unit table).
const ROWS = EGRESS_BLOCK_REPLIES.filter((row) => row.stage !== 'EHLO');

/** An MX host name of the row's provider, so the quarantine is keyed as in production. */
function hostName(who: string, i: number): string {
  if (who.startsWith('Microsoft')) return `b${i}-test.mail.protection.outlook.com`;
  if (who.startsWith('Google')) return `alt${i}.aspmx.l.google.com`;
  if (who.startsWith('Yahoo')) return `mta${i}.am0.yahoodns.net`;
  if (who.startsWith('Proofpoint')) return `mx${i}.pphosted.com`;
  if (who.startsWith('Mimecast')) return `eu-smtp-inbound-${i}.mimecast.com`;
  return `mx.b${i}.test`;
}

function worldDomains(): Record<string, DomainSpec> {
  const domains: Record<string, DomainSpec> = {};
  ROWS.forEach((row, i) => {
    domains[`b${i}.test`] = {
      mx: [
        {
          host: hostName(row.who, i),
          preference: 10,
          ip: `127.0.1.${10 + i}`,
          behaviour: { mailboxes: [`user0@b${i}.test`], starttls: false, refuseFrom: { sources: [REFUSED], stage: row.stage as 'connect' | 'MAIL' | 'RCPT', reply: row.reply } },
        },
      ],
    };
  });
  domains['control.test'] = { mx: [{ host: 'mx.control.test', preference: 10, ip: '127.0.1.90', behaviour: { mailboxes: ['user0@control.test'], starttls: false } }] };
  return domains;
}

let world: MailWorld;

beforeAll(async () => {
  world = await startMailWorld({ domains: worldDomains() });
});

afterAll(async () => {
  await world?.stop();
});

const remotes = (host: string) => hostOf(world, host).stats.log.map((session) => session.remote.split(':')[0]);

describe('a reply that blames the egress', () => {
  it.each(ROWS.map((row, i) => [row.who, row.stage, i] as const))('%s at %s: that egress is quarantined for that provider only; the addresses end right through the other', async (_, _stage, i) => {
    const prober = testProber(world, { sourceAddresses: [REFUSED, OTHER] });
    const domain = `b${i}.test`;
    const host = hostName(ROWS[i]!.who, i);
    const outcome = await prober.probeDomain(domain, [`user0@${domain}`, `nobody@${domain}`]);

    expect(outcome.outcomes.map((o) => [o.result, o.reason.slice(0, 3)])).toEqual([
      ['Valid', '250'],
      ['Invalid', '550'],
    ]);
    expect(remotes(host)).toContain(REFUSED);
    expect(remotes(host).at(-1)).toBe(OTHER);
    expect(hostOf(world, host).stats.rcpts.every((rcpt) => rcpt.endsWith(`@${domain}`))).toBe(true);
    expect(prober.quarantine.of(REFUSED).map((q) => q.provider)).toEqual([quarantineKey(providerOfHost(host), host)]);
    expect(prober.quarantine.of(OTHER)).toEqual([]);

    // Another provider still gets the refused egress (the first an idle prober picks).
    const before = remotes('mx.control.test').length;
    const control = await prober.probeDomain('control.test', ['user0@control.test']);
    expect(control.outcomes[0]?.result).toBe('Valid');
    expect(remotes('mx.control.test').slice(before)).toEqual([REFUSED]);
  });

  it('with no other egress, the addresses are Unknown with reason egress_blocked, never Invalid', async () => {
    const prober = testProber(world, { sourceAddresses: [REFUSED] });
    const outcome = await prober.probeDomain('b0.test', ['user0@b0.test', 'nobody@b0.test']);
    for (const o of outcome.outcomes) {
      expect(o.result).toBe('Unknown');
      expect(o.reason).toMatch(/^egress_blocked: microsoft refused egress 127\.0\.0\.2 \(550 5\.7\.1 Unfortunately/);
      // The evidence is the reply that ended the attempt (CONTRACT §10).
      expect(o).toMatchObject({ smtpCode: 550, enhancedCode: '5.7.1', attempts: 1 });
    }
  });
});
