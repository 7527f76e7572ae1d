import type { EmailResult } from '../../../src/domain/lead.ts';
import type { HostBehaviour, MailWorldDescription } from '../../../src/sandbox/mail-world/types.ts';

export interface StandardWorldOptions {
  /** Existing mailboxes per domain (`user0@` ... ), default 100. */
  mailboxesPerDomain?: number;
  /** Reply latency of every host, default 0. */
  latencyMs?: number;
}

/** What a prober must conclude for a domain of the standard world. */
export interface DomainExpectation {
  /** Result for an existing mailbox (`user<k>@`). */
  known: EmailResult;
  /** Result for an address that does not exist (`nobody<k>@`). */
  unknown: EmailResult;
  isCatchAll: boolean | null;
  /** The MX host whose answer counts, null when no host answers. */
  mxHost: string | null;
}

/** Every kind of domain a prober meets, and the verdict it must reach for each. */
export const STANDARD_EXPECTATIONS = {
  'good.test': { known: 'Valid', unknown: 'Invalid', isCatchAll: false, mxHost: 'mx1.good.test' },
  'plain.test': { known: 'Valid', unknown: 'Invalid', isCatchAll: false, mxHost: 'mx.plain.test' },
  'catchall.test': { known: 'Catch-All', unknown: 'Catch-All', isCatchAll: true, mxHost: 'mx.catchall.test' },
  'greylist.test': { known: 'Valid', unknown: 'Invalid', isCatchAll: false, mxHost: 'mx.greylist.test' },
  'blocked.test': { known: 'Unknown', unknown: 'Unknown', isCatchAll: null, mxHost: 'mx.blocked.test' },
  'silent.test': { known: 'Unknown', unknown: 'Unknown', isCatchAll: null, mxHost: null },
  'refused.test': { known: 'Unknown', unknown: 'Unknown', isCatchAll: null, mxHost: null },
  'fallback.test': { known: 'Valid', unknown: 'Invalid', isCatchAll: false, mxHost: 'mx2.fallback.test' },
  'busy.test': { known: 'Valid', unknown: 'Invalid', isCatchAll: false, mxHost: 'mx2.busy.test' },
  'arecord.test': { known: 'Valid', unknown: 'Invalid', isCatchAll: false, mxHost: 'arecord.test' },
  'nullmx.test': { known: 'Invalid', unknown: 'Invalid', isCatchAll: null, mxHost: null },
  'nomail.test': { known: 'Invalid', unknown: 'Invalid', isCatchAll: null, mxHost: null },
  'nxdomain.test': { known: 'Invalid', unknown: 'Invalid', isCatchAll: null, mxHost: null },
  'limited.test': { known: 'Valid', unknown: 'Invalid', isCatchAll: false, mxHost: 'mx.limited.test' },
  'closing.test': { known: 'Valid', unknown: 'Invalid', isCatchAll: false, mxHost: 'mx.closing.test' },
  'servfail.test': { known: 'Unknown', unknown: 'Unknown', isCatchAll: null, mxHost: null },
} as const satisfies Record<string, DomainExpectation>;

export type StandardDomain = keyof typeof STANDARD_EXPECTATIONS;
export const STANDARD_DOMAINS = Object.keys(STANDARD_EXPECTATIONS) as StandardDomain[];

/** Recipients per session on limited.test, and MAIL+RCPT commands per session on closing.test. */
export const STANDARD_LIMITS = { rcptPerSession: 3, commandsPerSession: 4 } as const;

export const knownAddress = (domain: string, k: number): string => `user${k}@${domain}`;
export const unknownAddress = (domain: string, k: number): string => `nobody${k}@${domain}`;

/**
 * The standard world: every case of the prober's rules on its own domain (see
 * STANDARD_EXPECTATIONS). nxdomain.test is not described, so DNS answers NXDOMAIN for it.
 */
export function standardWorld(options: StandardWorldOptions = {}): MailWorldDescription {
  const count = options.mailboxesPerDomain ?? 100;
  const latency = options.latencyMs ? { latencyMs: options.latencyMs } : {};
  const mailboxes = (domain: string): string[] =>
    Array.from({ length: count }, (_, k) => knownAddress(domain, k));
  const host = (domain: string, behaviour: HostBehaviour = {}): HostBehaviour => ({
    mailboxes: mailboxes(domain),
    ...latency,
    ...behaviour,
  });
  return {
    domains: {
      'good.test': {
        mx: [{ host: 'mx1.good.test', preference: 10, ip: '127.0.0.11', behaviour: host('good.test') }],
      },
      'plain.test': {
        mx: [
          {
            host: 'mx.plain.test',
            preference: 10,
            ip: '127.0.0.12',
            behaviour: host('plain.test', { starttls: false, heloOnly: true }),
          },
        ],
      },
      'catchall.test': {
        mx: [
          {
            host: 'mx.catchall.test',
            preference: 10,
            ip: '127.0.0.13',
            behaviour: { catchAll: true, ...latency },
          },
        ],
      },
      'greylist.test': {
        mx: [
          {
            host: 'mx.greylist.test',
            preference: 10,
            ip: '127.0.0.14',
            behaviour: host('greylist.test', { greylist: true }),
          },
        ],
      },
      'blocked.test': {
        mx: [
          {
            host: 'mx.blocked.test',
            preference: 10,
            ip: '127.0.0.15',
            behaviour: host('blocked.test', { policyBlock: true }),
          },
        ],
      },
      'silent.test': {
        mx: [{ host: 'mx.silent.test', preference: 10, ip: '127.0.0.16', behaviour: { silent: true } }],
      },
      'refused.test': {
        mx: [{ host: 'mx.refused.test', preference: 10, ip: '127.0.0.17', behaviour: { refused: true } }],
      },
      // Listed out of order on purpose: preference, not position, decides.
      'fallback.test': {
        mx: [
          { host: 'mx2.fallback.test', preference: 20, ip: '127.0.0.19', behaviour: host('fallback.test') },
          { host: 'mx1.fallback.test', preference: 10, ip: '127.0.0.18', behaviour: { silent: true } },
        ],
      },
      'busy.test': {
        mx: [
          {
            host: 'mx1.busy.test',
            preference: 10,
            ip: '127.0.0.20',
            behaviour: host('busy.test', { refuseGreeting: true }),
          },
          { host: 'mx2.busy.test', preference: 20, ip: '127.0.0.21', behaviour: host('busy.test') },
        ],
      },
      'arecord.test': { a: { ip: '127.0.0.22', behaviour: host('arecord.test') } },
      // A catch-all server sits behind the A record: probing it despite the null MX would show.
      'nullmx.test': { nullMx: true, a: { ip: '127.0.0.23', behaviour: { catchAll: true } } },
      'nomail.test': {},
      'limited.test': {
        mx: [
          {
            host: 'mx.limited.test',
            preference: 10,
            ip: '127.0.0.24',
            behaviour: host('limited.test', { maxRcptPerSession: STANDARD_LIMITS.rcptPerSession }),
          },
        ],
      },
      'closing.test': {
        mx: [
          {
            host: 'mx.closing.test',
            preference: 10,
            ip: '127.0.0.25',
            behaviour: host('closing.test', { closeAfterCommands: STANDARD_LIMITS.commandsPerSession }),
          },
        ],
      },
      'servfail.test': { servfail: true },
    },
  };
}

export interface ListedAddress {
  email: string;
  domain: StandardDomain;
  expected: EmailResult;
}

/**
 * `count` distinct addresses spread evenly over every standard domain, alternating existing and
 * non-existing mailboxes, each with the result a prober must give it. Needs a world with at least
 * `ceil(count / (2 × domains))` mailboxes per domain.
 */
export function standardAddressList(
  count: number,
  options: Pick<StandardWorldOptions, 'mailboxesPerDomain'> = {},
): ListedAddress[] {
  const mailboxes = options.mailboxesPerDomain ?? 100;
  const needed = Math.ceil(count / (2 * STANDARD_DOMAINS.length));
  if (needed > mailboxes)
    throw new Error(
      `standardAddressList(${count}) needs ${needed} mailboxes per domain, the world has ${mailboxes}`,
    );
  return Array.from({ length: count }, (_, i) => {
    const domain = STANDARD_DOMAINS[i % STANDARD_DOMAINS.length] as StandardDomain;
    const round = Math.floor(i / STANDARD_DOMAINS.length);
    const k = Math.floor(round / 2);
    const exists = round % 2 === 0;
    return {
      email: exists ? knownAddress(domain, k) : unknownAddress(domain, k),
      domain,
      expected: exists ? STANDARD_EXPECTATIONS[domain].known : STANDARD_EXPECTATIONS[domain].unknown,
    };
  });
}
