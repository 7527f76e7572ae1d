import type { EmailResult } from '../domain/lead.ts';
import type { MailboxSignal } from '../domain/catch-all.ts';
import type { MxProvider, ProviderOverrides } from '../domain/mx-provider.ts';
import type { AttemptTranscript } from '../domain/smtp-transcript.ts';
import type { SharedBudget } from './shared-budget.ts';

export type { EmailResult };

export interface EmailFlags {
  /** The domain is a known throw-away mailbox provider. */
  disposable: boolean;
  /** The local part names a function (info@, sales@, ...) rather than a person. */
  role: boolean;
  /** The domain is a free consumer mailbox provider (gmail.com, ...). */
  free: boolean;
}

export interface ProbeOutcome {
  /** The address exactly as the caller passed it. */
  email: string;
  result: EmailResult;
  /** `precheck` when decided without talking SMTP (syntax, DNS), `smtp` when a mail server was asked. */
  source: 'precheck' | 'smtp';
  /** Last SMTP reply (`550 5.1.1 ...`) or a plain account of what went wrong; flags are appended. */
  reason: string;
  /** MX host that gave the answer, null when none was reached. */
  mxHost: string | null;
  /** Mail provider of that host (or of the domain's first MX when none answered); null without SMTP. */
  mxProvider: MxProvider | null;
  /** Who hosts the domain's mailboxes (CONTRACT §12): `mxProvider`, or what DNS shows behind a gateway; null without SMTP. */
  mailboxProvider: MxProvider | null;
  /** The DNS facts that showed `mailboxProvider`. */
  mailboxProviderSignals: MailboxSignal[];
  /** Code of the reply that decided the address (its RCPT reply, or the reply that ended the attempt); null without one. */
  smtpCode: number | null;
  /** That reply's RFC 3463 code (`5.1.1`), null when it had none. */
  enhancedCode: string | null;
  /** SMTP attempts made for the address (0 when none). */
  attempts: number;
  /** What was said on the wire in each of those attempts (CONTRACT §10), oldest first. */
  transcript: AttemptTranscript[];
  flags: EmailFlags;
  /** Present when the address was still answered with a 4xx after its last attempt (greylisting). */
  deferral?: { attempts: number; reply: string };
}

export interface DomainOutcome {
  domain: string;
  /** true: accepts a never-existing address; false: rejects it as unknown; null: undetermined. */
  isCatchAll: boolean | null;
  /** MX host used (the most preferred one when none answered), null when the domain has none. */
  mxHost: string | null;
  /** One per address passed in, in the same order. */
  outcomes: ProbeOutcome[];
}

export interface SmtpProberOptions {
  /** EHLO name. */
  helo: string;
  /** MAIL FROM address. */
  from: string;
  /** Port of the MX hosts (25 in production). */
  port: number;
  /** Deadline of the connect and of every reply. */
  timeoutMs: number;
  /** Connections open at once, all hosts together, across all callers of this instance. */
  concurrency: number;
  /** Connections open at once to one MX host of an unknown provider, across all callers of this instance. */
  perHost: number;
  /** Per provider overrides of the built-in limits table and of the egress (`SMTP_PROVIDER_LIMITS`). */
  providerLimits?: ProviderOverrides;
  /** Comma list of `socks5://[user:pass@]host:port` URLs, each one egress of the probe connections (`SMTP_PROXY`); direct when absent. */
  proxy?: string;
  /** Local IP addresses direct probe connections bind to, each one egress (`SMTP_SOURCE_ADDRESSES`). */
  sourceAddresses?: string[];
  /** The per-(egress, host) budget shared by every worker process; absent: this instance's limits alone. */
  budget?: SharedBudget;
  /** Rejected RCPTs after which a session ends and the rest continue on another (default 8). */
  maxRejectsPerSession?: number;
  /** RCPTs per mail transaction (default 100). */
  rcptPerTransaction?: number;
  /** `ip`, `ip:port` or `[ipv6]:port`; the system resolvers when absent. */
  dnsServers?: string[];
  /** Pause before retrying addresses that got a 4xx (default 5000). */
  greylistDelayMs?: number;
  /** Attempts for an address that keeps getting 4xx, first one included (default 3). */
  greylistAttempts?: number;
  /** Consecutive sessions that may fail without answering anything before the rest is Unknown (default 3). */
  maxReconnects?: number;
  /** Well-known domains the resolver and outbound SMTP are checked against (`SMTP_CANARY_DOMAINS`); none: no checks. */
  canaryDomains?: string[];
  /** How long an egress a provider refused stays away from it (CONTRACT §13); default 1 h. */
  egressQuarantineMs?: number;
  /** CONTRACT §13 self-checks: egress (source address, proxy `host:port`, `direct`) → public IP; DNSBL zones; interval. */
  egressPublicIps?: Record<string, string>;
  dnsblZones?: string[];
  egressCheckIntervalMs?: number;
}
