import type { MailboxSignal } from '../../../src/domain/catch-all.ts';
import type { MxProvider } from '../../../src/domain/mx-provider.ts';
import type { MailWorldDescription } from '../../../src/sandbox/mail-world/types.ts';

/** What a domain of the mailbox-host world must show on its results. */
export interface MailboxHostExpectation {
  mxProvider: MxProvider;
  mailboxProvider: MxProvider;
  signals: MailboxSignal[];
  /** Whether DNS may be asked about the domain beyond its MX (only behind a gateway). */
  looksBehind: boolean;
}

const M365_SPF = 'v=spf1 ip4:192.0.2.0/24 include:spf.protection.outlook.com -all';
const GOOGLE_SPF = 'v=spf1 include:_spf.google.com ~all';

/** One domain per rule of CONTRACT §12 "Who hosts the mailboxes", each on its own catch-all host (plain.test excepted). */
export const MAILBOX_HOST_EXPECTATIONS = {
  // Microsoft 365 behind a gateway, one signal each.
  'm365-spf.test': { mxProvider: 'other', mailboxProvider: 'microsoft', signals: ['spf'], looksBehind: true },
  'm365-autodiscover.test': { mxProvider: 'proofpoint', mailboxProvider: 'microsoft', signals: ['autodiscover'], looksBehind: true },
  'm365-eop.test': { mxProvider: 'mimecast', mailboxProvider: 'microsoft', signals: ['eop'], looksBehind: true },
  // Google Workspace behind a gateway.
  'workspace.test': { mxProvider: 'other', mailboxProvider: 'google', signals: ['spf'], looksBehind: true },
  // The MX name says it: DNS is not asked more, even where it would say something else.
  'newms.test': { mxProvider: 'microsoft', mailboxProvider: 'microsoft', signals: ['mx'], looksBehind: false },
  'googlemx.test': { mxProvider: 'google', mailboxProvider: 'google', signals: ['mx'], looksBehind: false },
  // A host of its own with nothing behind it.
  'plain.test': { mxProvider: 'other', mailboxProvider: 'other', signals: ['mx'], looksBehind: true },
} as const satisfies Record<string, MailboxHostExpectation>;

export type MailboxHostDomain = keyof typeof MAILBOX_HOST_EXPECTATIONS;
export const MAILBOX_HOST_DOMAINS = Object.keys(MAILBOX_HOST_EXPECTATIONS) as MailboxHostDomain[];

/** The names DNS is asked when it looks behind `domain`'s MX host. */
export const signalQueriesOf = (domain: string): string[] => [
  `TXT ${domain}`,
  `CNAME autodiscover.${domain}`,
  `A ${domain.replaceAll('.', '-')}.mail.protection.outlook.com`,
];

const catchAll = (host: string, ip: string) => ({ mx: [{ host, preference: 10, ip, behaviour: { catchAll: true } }] });

/** The world of MAILBOX_HOST_EXPECTATIONS, on 127.0.29.x. */
export function mailboxHostWorld(): MailWorldDescription {
  return {
    domains: {
      'm365-spf.test': catchAll('mx.m365-spf.test', '127.0.29.1'),
      'm365-autodiscover.test': catchAll('m365-autodiscover-test.pphosted.com', '127.0.29.2'),
      'm365-eop.test': catchAll('m365-eop-test.mimecast.com', '127.0.29.3'),
      'workspace.test': catchAll('mx.workspace.test', '127.0.29.4'),
      'newms.test': catchAll('newms-test.j-v1.mx.microsoft', '127.0.29.5'),
      'googlemx.test': catchAll('googlemx-test.aspmx.l.google.com', '127.0.29.6'),
      'plain.test': {
        mx: [{ host: 'mx.plain.test', preference: 10, ip: '127.0.29.7', behaviour: { mailboxes: ['user0@plain.test'] } }],
      },
    },
    records: {
      'm365-spf.test': { txt: ['google-site-verification=abc', M365_SPF] },
      'autodiscover.m365-autodiscover.test': { cname: 'autodiscover.outlook.com' },
      'autodiscover.outlook.com': { a: ['192.0.2.10'] },
      'm365-eop-test.mail.protection.outlook.com': { a: ['192.0.2.11'] },
      'workspace.test': { txt: [GOOGLE_SPF] },
      // Signals that must not be read: their MX name decides.
      'newms.test': { txt: [GOOGLE_SPF] },
      'googlemx.test': { txt: [M365_SPF] },
      'googlemx-test.mail.protection.outlook.com': { a: ['192.0.2.12'] },
      'plain.test': { txt: ['v=spf1 mx -all'] },
      'autodiscover.plain.test': { cname: 'autodiscover.plain.test.example' },
    },
  };
}
