import type { ZoneEntry } from './dns-server.ts';

/** How one mail host behaves. Unset fields mean an ordinary, well-behaved server. */
export interface HostBehaviour {
  /** Existing addresses (compared case-insensitively): RCPT → 250, any other → 550 5.1.1. */
  mailboxes?: readonly string[];
  /** Accept every recipient. */
  catchAll?: boolean;
  /** 451 4.7.1 the first time this host sees an address, normal answers afterwards. */
  greylist?: boolean;
  /**
   * Postgrey-like: 451 4.7.1 for a (client IP, sender, recipient) triplet until this many ms after
   * the triplet was first seen, normal answers afterwards.
   */
  greylistForMs?: number;
  /** Every RCPT → 451 4.3.0, however often it is asked (a server in permanent temporary trouble). */
  deferAlways?: boolean;
  /** Every RCPT → 550 5.7.1 "... blocked using zen.spamhaus.org". */
  policyBlock?: boolean;
  /**
   * Clients from these addresses get `reply` (wire lines, e.g. "554 5.7.1 Blocked - see …") at `stage` instead
   * of the normal answer: a provider that refuses one of our egresses (CONTRACT §13).
   */
  refuseFrom?: { sources: readonly string[]; stage: 'connect' | 'MAIL' | 'RCPT'; reply: readonly string[] };
  /** Accept the TCP connection and never send a greeting (a raw TCP server). */
  silent?: boolean;
  /**
   * Clients from these addresses get a connection that never greets, as behind a filter that drops their
   * port-25 traffic (an egress whose outbound SMTP is blocked).
   */
  dropFrom?: readonly string[];
  /** Nothing listens on the host's address. */
  refused?: boolean;
  /** 421 4.3.2 instead of the 220 greeting. */
  refuseGreeting?: boolean;
  /** After this many RCPTs in one session every further RCPT gets 452 4.5.3. */
  maxRcptPerSession?: number;
  /** The MAIL or RCPT after this many MAIL+RCPT commands in one session gets 421 and the connection closes. */
  closeAfterCommands?: number;
  /** The MAIL or RCPT after this many MAIL+RCPT commands in one session gets no answer: the connection is cut. */
  hangUpAfterCommands?: number;
  /** Delay before the greeting and before every MAIL and RCPT reply (a slow or distant server). */
  latencyMs?: number;
  /** Text after "220 <name> ESMTP" in the greeting (Postfix says "Postfix" there by default). */
  banner?: string;
  /** Offer STARTTLS (self-signed certificate). Default true, as most real MX hosts do. */
  starttls?: boolean;
  /** Refuse EHLO (500) so that the client must fall back to HELO. */
  heloOnly?: boolean;
  /** Advertise PIPELINING (RFC 2920). Default true, as smtp-server does. */
  pipelining?: boolean;
  /** Domains (on a shared host) for which every recipient is accepted. */
  catchAllDomains?: readonly string[];
  /** When set, RCPTs for any other domain get 554 5.7.1 relay access denied. */
  relayDomains?: readonly string[];
  /**
   * Postfix-like error tarpit, per session: from the `afterErrors`-th rejected RCPT on, each reply
   * waits `delayMs` more than the last; at `closeAfterErrors` errors, 421 and the connection closes.
   */
  tarpit?: { afterErrors: number; delayMs: number; closeAfterErrors: number };
  /**
   * Answer every command `latencyMs` after it arrives, however many are in flight (a pipelining host
   * bound by round trips, not by one command at a time). Plain text, no STARTTLS.
   */
  roundTripBound?: boolean;
}

export interface MxSpec {
  host: string;
  preference: number;
  /** 127.0.0.x address the host's A record points to (and its server listens on). */
  ip: string;
  behaviour: HostBehaviour;
}

/**
 * One domain of the world. DNS answers for it:
 * - `mx`: its MX records (the hosts get A records);
 * - `a`: an A record for the domain itself, with a server when `behaviour` is given;
 * - `nullMx`: the RFC 7505 null MX (`MX 0 .`);
 * - `servfail`: SERVFAIL to every query;
 * - nothing set: the name exists but has no records (NODATA).
 * Names that are not described at all are NXDOMAIN.
 */
export interface DomainSpec {
  mx?: readonly MxSpec[];
  a?: { ip: string; behaviour?: HostBehaviour };
  nullMx?: boolean;
  servfail?: boolean;
}

/**
 * Records at a name beyond what its domain's spec gives it: a domain's TXT (SPF), an alias (`autodiscover.<domain>`
 * CNAME), an A record of a name with no mail host (a Microsoft EOP host name).
 */
/** The records a description may add for a name: any the test DNS server answers. */
export type DnsRecords = ZoneEntry;

export interface MailWorldDescription {
  domains: Readonly<Record<string, DomainSpec>>;
  /**
   * More DNS records by name, added to what `domains` gives the same name: a gateway domain's SPF and autodiscover
   * (CONTRACT §12), a blocklist zone's answers, PTR and A records of our egresses (CONTRACT §13).
   */
  records?: Readonly<Record<string, DnsRecords>>;
  /** When set, names outside this domain get SERVFAIL rather than NXDOMAIN (the sandbox does not know them). */
  authoritativeFor?: string;
}

/** One SMTP session as a server saw it. */
export interface SessionRecord {
  remote: string;
  commands: string[];
  rcpts: string[];
  tls: boolean;
  /** The TLS handshake resumed an earlier session (a ticket the client kept). */
  tlsResumed?: boolean;
  ended: boolean;
  /**
   * When the connection was accepted, the session's first MAIL FROM read and the connection closed (ms since the
   * epoch, to the microsecond): how a session's time splits between its opening and its transactions.
   */
  acceptedAt: number;
  firstMailAt?: number;
  closedAt?: number;
  /** RCPTs read and not yet answered when QUIT was read: a client that wrote its QUIT behind its last RCPTs. */
  rcptsUnansweredAtQuit?: number;
}

/** What one host saw; tests assert on it ("never DATA", "one session", ...). */
export interface HostStats {
  /** TCP connections accepted. */
  sessions: number;
  /** Sessions open right now (a session ends at QUIT or when the connection closes). */
  activeSessions: number;
  maxConcurrentSessions: number;
  /**
   * Most connections open at once from each client address (what a provider limits per sending IP), each
   * counted from accept until the client closes it (its FIN or a reset), after QUIT or without: the
   * fleet's own count, so a test of the shared budget does not take the prober's word for it.
   */
  maxConcurrentBySource: Record<string, number>;
  /** Every RCPT TO address, in order. */
  rcpts: string[];
  /** DATA or BDAT commands received: a prober must never send any. */
  dataCommands: number;
  /** Commands received, by verb (upper case), plain and through TLS: each is a reply a session waited for. */
  commandsByVerb: Record<string, number>;
  tlsSessions: number;
  log: SessionRecord[];
}

export interface MailHost {
  /** MX host name (or the domain name for an A-record host). */
  name: string;
  ip: string;
  behaviour: HostBehaviour;
  stats: HostStats;
}
