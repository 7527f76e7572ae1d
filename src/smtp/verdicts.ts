import { formatReply } from '../domain/smtp-reply.ts';
import type { MailboxHost } from '../domain/catch-all.ts';
import { type MxProvider, providerOfHost } from '../domain/mx-provider.ts';
import type { AddressFinding, CatchAllVerdict } from './domain-probe.ts';
import type { MxLookup } from './dns.ts';
import { type DnsHealth, ENVIRONMENT_REASONS } from './environment.ts';
import { describeFlags } from './flags.ts';
import type { EmailFlags, EmailResult, ProbeOutcome } from './types.ts';

/** One input address as the prober handles it. */
export interface Entry {
  email: string;
  flags: EmailFlags;
  /** Address as sent in RCPT TO (normalized), null when its syntax is invalid. */
  address: string | null;
}

/** The reason of a candidate the finder's in-turn probe never asked (an earlier one was Valid, or the session ended). */
export const NOT_ASKED = 'not asked';

export const REASONS = {
  syntax: 'invalid address syntax',
  noMailHost: 'no MX or A record',
  nullMx: 'null MX (RFC 7505): the domain accepts no mail',
  resolverUnreliable: `${ENVIRONMENT_REASONS.resolverUnreliable}: no MX or A record, says a resolver that denies well-known mail domains too`,
  egressBlocked: (port: number) => `${ENVIRONMENT_REASONS.egressBlocked}: port ${port} reaches no mail server from this worker`,
} as const;

export function outcome(
  entry: Entry,
  result: EmailResult,
  source: ProbeOutcome['source'],
  reason: string,
  mxHost: string | null,
  /** The provider of the host SMTP was attempted with; null when none was. */
  mxProvider: MxProvider | null = null,
  evidence: Evidence = NO_EVIDENCE,
): ProbeOutcome {
  const provider = mxHost ? providerOfHost(mxHost) : mxProvider;
  return {
    email: entry.email,
    result,
    source,
    reason: reason + describeFlags(entry.flags),
    mxHost,
    mxProvider: provider,
    // Who hosts the mailboxes is the domain's, set on the SMTP path (withMailbox); none without SMTP.
    mailboxProvider: null,
    mailboxProviderSignals: [],
    ...evidence,
    flags: entry.flags,
  };
}

type Evidence = Pick<ProbeOutcome, 'smtpCode' | 'enhancedCode' | 'attempts' | 'transcript'>;
const NO_EVIDENCE: Evidence = { smtpCode: null, enhancedCode: null, attempts: 0, transcript: [] };

/** What a finding proves: its reply's codes and the attempts behind it (a failure was one attempt at least). */
function evidenceOf(finding: AddressFinding): Evidence {
  const transcript = finding.transcript ?? [];
  if (finding.kind === 'failure')
    return { smtpCode: finding.reply?.code ?? null, enhancedCode: finding.reply?.enhanced ?? null, attempts: 1, transcript };
  return { smtpCode: finding.reply.code, enhancedCode: finding.reply.enhanced, attempts: finding.attempts, transcript };
}

export function outcomeOfFinding(entry: Entry, finding: AddressFinding, provider: MxProvider): ProbeOutcome {
  const evidence = evidenceOf(finding);
  if (finding.kind === 'failure')
    return outcome(entry, 'Unknown', 'smtp', finding.reason, finding.host, provider, evidence);
  const reply = formatReply(finding.reply);
  switch (finding.class) {
    case 'accepted':
      return outcome(entry, 'Valid', 'smtp', reply, finding.host, provider, evidence);
    case 'mailbox-unknown':
      return outcome(entry, 'Invalid', 'smtp', reply, finding.host, provider, evidence);
    case 'temporary':
      return {
        ...outcome(entry, 'Unknown', 'smtp', `${reply} (still deferred after ${finding.attempts} attempts)`, finding.host, provider, evidence),
        deferral: { attempts: finding.attempts, reply },
      };
    default:
      return outcome(entry, 'Unknown', 'smtp', reply, finding.host, provider, evidence);
  }
}

/**
 * A catch-all verdict is decided by an accepting RCPT: the address's own 250 when it was answered, else the random
 * address's, whose attempt then counts among the address's (it was made to judge this address too).
 */
function catchAllEvidence(verdict: CatchAllVerdict, finding: AddressFinding | undefined): Evidence {
  const own = finding ? evidenceOf(finding) : NO_EVIDENCE;
  if (finding?.kind === 'reply' || !verdict.reply) return own;
  return {
    smtpCode: verdict.reply.code,
    enhancedCode: verdict.reply.enhanced,
    attempts: own.attempts + 1,
    transcript: verdict.attempt ? [...own.transcript, verdict.attempt] : own.transcript,
  };
}

function catchAllOutcome(entry: Entry, verdict: CatchAllVerdict, provider: MxProvider, finding: AddressFinding | undefined): ProbeOutcome {
  return outcome(
    entry,
    'Catch-All',
    'smtp',
    `catch-all: a random address was accepted (${verdict.reason})`,
    verdict.host,
    provider,
    catchAllEvidence(verdict, finding),
  );
}

/** The verdict DNS alone gives when the domain has no usable mail host. */
export function dnsVerdict(lookup: Exclude<MxLookup, { kind: 'mx' }>): { result: EmailResult; reason: string } {
  switch (lookup.kind) {
    case 'null-mx':
      return { result: 'Invalid', reason: REASONS.nullMx };
    case 'no-mail-host':
      return { result: 'Invalid', reason: REASONS.noMailHost };
    case 'dns-error':
      return { result: 'Unknown', reason: lookup.reason };
  }
}

/** The verdict without a mail host: DNS's own, unless the resolver denies well-known mail domains too. */
export function dnsOnlyVerdict(lookup: Exclude<MxLookup, { kind: 'mx' }>, dns: DnsHealth): { result: EmailResult; reason: string } {
  if (lookup.kind === 'no-mail-host' && dns === 'unreliable') return { result: 'Unknown', reason: REASONS.resolverUnreliable };
  return dnsVerdict(lookup);
}

/** The SMTP path's outcome with the domain's mailbox host in place of the MX provider's default. */
export const withMailbox = (value: ProbeOutcome, host: MailboxHost): ProbeOutcome => ({
  ...value,
  mailboxProvider: host.provider,
  mailboxProviderSignals: [...host.signals],
});

/** An address's outcome once its domain's probe ended: a catch-all domain's first, then its own finding, else never asked. */
export function outcomeAfterProbe(
  entry: Entry,
  catchAll: CatchAllVerdict,
  finding: AddressFinding | undefined,
  provider: MxProvider,
): ProbeOutcome {
  if (catchAll.value === true) return catchAllOutcome(entry, catchAll, provider, finding);
  if (finding) return outcomeOfFinding(entry, finding, provider);
  return outcome(entry, 'Unknown', 'smtp', NOT_ASKED, null, provider);
}
