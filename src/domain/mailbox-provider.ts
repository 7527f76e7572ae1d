import type { MailboxHost, MailboxSignal } from './catch-all.ts';
import { MAILBOX_SIGNALS } from './catch-all.ts';
import type { MxProvider } from './mx-provider.ts';

/**
 * What a domain's DNS says beyond its MX (CONTRACT §12 "Who hosts the mailboxes"). A lookup that failed or
 * found nothing gives the empty value: no signal, never a verdict.
 */
export interface MailboxDnsFacts {
  /** The domain's SPF records (`v=spf1 ...`), each as one string (its TXT chunks joined, RFC 7208 §3.3). */
  spf: readonly string[];
  /** Where `autodiscover.<domain>` points (its CNAME targets). */
  autodiscover: readonly string[];
  /** Whether Microsoft's per-domain inbound host (`<domain-with-dashes>.mail.protection.outlook.com`) has an address. */
  eop: boolean;
}

export const NO_MAILBOX_DNS_FACTS: MailboxDnsFacts = { spf: [], autodiscover: [], eop: false };

/**
 * MX providers that may only front the mailboxes: a filtering gateway, or a host we cannot name. Only for
 * these is DNS asked more; a Google, Microsoft, Yahoo or Zoho MX host is the mailbox host itself.
 */
export function isGateway(provider: MxProvider): boolean {
  return provider === 'proofpoint' || provider === 'mimecast' || provider === 'other';
}

/** The inbound host Exchange Online gives every accepted domain: `contoso.com` → `contoso-com.mail.protection.outlook.com`. */
export function eopHostOf(domain: string): string {
  return `${domain.toLowerCase().replace(/\.$/, '').replaceAll('.', '-')}.mail.protection.outlook.com`;
}

/** `autodiscover.<domain>`: a Microsoft 365 tenant points it at `autodiscover.outlook.com`. */
export function autodiscoverNameOf(domain: string): string {
  return `autodiscover.${domain.toLowerCase().replace(/\.$/, '')}`;
}

const MICROSOFT_SPF = 'spf.protection.outlook.com';
const GOOGLE_SPF = '_spf.google.com';
const MICROSOFT_AUTODISCOVER = 'autodiscover.outlook.com';

const bareName = (name: string) => name.toLowerCase().replace(/\.$/, '');

/** A TXT record is SPF when it starts with the version tag alone (`v=spf1` then a space or nothing). */
export function isSpfRecord(text: string): boolean {
  return /^v=spf1(\s|$)/i.test(text.trim());
}

/** Whether an SPF record has `include:<domain>` (any qualifier: `+`, `~`, `?`; a `-include` denies, so it does not count). */
function spfIncludes(record: string, domain: string): boolean {
  return record
    .trim()
    .split(/\s+/)
    .some((term) => {
      const match = /^[+~?]?include:(.+)$/i.exec(term);
      return match !== null && bareName(match[1] ?? '') === domain;
    });
}

const ordered = (signals: ReadonlySet<MailboxSignal>): MailboxSignal[] => MAILBOX_SIGNALS.filter((s) => signals.has(s));

/**
 * Who hosts a domain's mailboxes, from the provider of its MX host and, for a gateway, what its DNS shows behind it:
 * - a Google, Microsoft, Yahoo or Zoho MX host: that provider, shown by `mx` (facts are not needed);
 * - Microsoft 365, shown by any of: SPF including `spf.protection.outlook.com` (`spf`), `autodiscover.<domain>`
 *   a CNAME to `autodiscover.outlook.com` (`autodiscover`), the domain's EOP host resolving (`eop`);
 * - else Google Workspace, shown by SPF including `_spf.google.com` (`spf`);
 * - else the gateway itself, shown by `mx`.
 * A domain whose SPF includes both and that nothing else points at Microsoft stays with its MX provider: a shared
 * SPF (a migration, mail sent through both) does not say which one keeps the mailboxes.
 */
export function mailboxHostOf(mxProvider: MxProvider, facts: MailboxDnsFacts = NO_MAILBOX_DNS_FACTS): MailboxHost {
  const byMx: MailboxHost = { provider: mxProvider, signals: ['mx'] };
  if (!isGateway(mxProvider)) return byMx;
  const spf = facts.spf.filter(isSpfRecord);
  const microsoftSpf = spf.some((record) => spfIncludes(record, MICROSOFT_SPF));
  const googleSpf = spf.some((record) => spfIncludes(record, GOOGLE_SPF));
  const microsoft = new Set<MailboxSignal>();
  if (facts.autodiscover.some((target) => bareName(target) === MICROSOFT_AUTODISCOVER)) microsoft.add('autodiscover');
  if (facts.eop) microsoft.add('eop');
  if (microsoft.size > 0 || (microsoftSpf && !googleSpf)) {
    if (microsoftSpf) microsoft.add('spf');
    return { provider: 'microsoft', signals: ordered(microsoft) };
  }
  if (googleSpf && !microsoftSpf) return { provider: 'google', signals: ['spf'] };
  return byMx;
}
