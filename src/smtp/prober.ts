import { domainOf, isValidEmailSyntax, normalizeEmail, toAsciiDomain } from '../domain/email.ts';
import type { DomainProbeContext, DomainProbeResult } from './domain-probe.ts';
import { DomainProbe } from './domain-probe.ts';
import { type MxHost, MxResolver } from './dns.ts';
import { DomainMismatchError } from './errors.ts';
import { emailFlags } from './flags.ts';
import { FairSlots } from './fair-slots.ts';
import { HostChannel } from './host-channel.ts';
import { MailboxHosts } from './mailbox-hosts.ts';
import type { MailboxHost } from '../domain/catch-all.ts';
import { type MxProvider, type ProviderLimits, providerOfHost, providerProxies, providerTable } from '../domain/mx-provider.ts';
import { type SocksProxy, socksProxyOf } from '../domain/socks-proxy.ts';
import { EgressEnvironments, type EnvironmentState } from './environment.ts';
import { EgressQuarantine, quarantineKey } from './egress-quarantine.ts';
import { EGRESS_HEALTH_CODES, EgressHealth, type DnsblAnswer, publicIpOf } from './egress-health.ts';
import { type ParsedOptions, parseProberOptions } from './prober-options.ts';
import type { DomainOutcome, EmailResult, ProbeOutcome, SmtpProberOptions } from './types.ts';
import { type Entry, REASONS, dnsOnlyVerdict, dnsVerdict, outcome, outcomeAfterProbe, outcomeOfFinding } from './verdicts.ts';
import { DomainOutcomes, MailboxWait } from './domain-outcomes.ts';

export type { DomainOutcome, EmailFlags, EmailResult, ProbeOutcome, SmtpProberOptions } from './types.ts';
export { domainOf, normalizeEmail, isValidEmailSyntax } from '../domain/email.ts';
export { DomainMismatchError, SmtpProberConfigError } from './errors.ts';

/** One way out to the MX hosts: a SOCKS5 proxy, a local source address, or the system's choice (`direct`). */
export interface Egress {
  /** What budgets, metrics, warnings and `/readyz` call it: the proxy's redacted URL, the address, or `direct`. */
  name: string;
  proxy: SocksProxy | null;
  localAddress?: string;
}

/** One egress as `/readyz` shows it (CONTRACT §13). */
export interface EgressReport {
  id: string;
  publicIp: string | null;
  state: 'ok' | 'degraded' | 'listed' | 'blocked';
  ptr: string | null;
  fcrdns: boolean | null;
  heloAligned: boolean | null;
  dnsbl: DnsblAnswer[];
  quarantines: { provider: string; until: string }[];
  checkedAt: string | null;
}

/** Channels kept for their pacing memory; past this many, idle ones are forgotten. */
const MAX_IDLE_CHANNELS = 10_000;

/**
 * Domains whose mailbox-host facts are remembered, and for how long: long enough that every page of a large
 * domain, a retried slice and a catch-all domain's later pages reuse one lookup; a failed lookup is tried again
 * sooner. Entries are a few short strings.
 */
const MAILBOX_HOSTS = { maxEntries: 20_000, ttlMs: 60 * 60_000, failedTtlMs: 60_000 } as const;

/** `promise`, or the signal's reason once it aborts (a caller's deadline holds while a lookup is still out). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** How `probeDomain` asks a domain's addresses. */
export interface ProbeDomainOptions {
  signal?: AbortSignal;
  onResult?: (outcome: ProbeOutcome) => void;
  owner?: string;
  /** Attempts for addresses answered with a 4xx, instead of `greylistAttempts` (a later retry asks once). */
  attempts?: number;
  /** Same seed, same catch-all address: what a later retry of a greylisting domain must ask again. */
  catchAllSeed?: string;
  /**
   * The email finder's way (CONTRACT §14): the addresses are candidates for one mailbox, asked in their order in
   * one transaction, none after the first Valid; those never asked come back Unknown with `NOT_ASKED`, 0 attempts.
   */
  inTurn?: boolean;
  /** The domain is known (cached) not to accept every address: no catch-all check is asked. */
  knownNotCatchAll?: boolean;
}

/**
 * Email verification by SMTP dialogue. One instance serves a whole worker process: its connection
 * limits (`concurrency` overall, shared round-robin between owners; per MX host by its provider's
 * limits and pacing) hold across every concurrent call, and every domain an MX host serves shares
 * that host's sessions.
 */
export class SmtpProber {
  readonly #options: ParsedOptions;
  readonly #slots: FairSlots;
  readonly #providers: Record<MxProvider, ProviderLimits>;
  readonly #egresses: Record<MxProvider, readonly Egress[]>;
  readonly #channels = new Map<string, HostChannel>();
  readonly #dns: MxResolver;
  readonly #mailboxHosts: MailboxHosts;
  readonly #environment: EgressEnvironments;
  readonly #quarantine: EgressQuarantine;
  readonly #health: EgressHealth;
  /** Settles once the first self-check is done: no session leaves before its egress was looked at. */
  readonly #healthChecked: Promise<void>;

  constructor(options: SmtpProberOptions) {
    const parsed = parseProberOptions(options);
    this.#options = parsed;
    this.#slots = new FairSlots(parsed.concurrency);
    this.#providers = providerTable(
      parsed.perHost,
      parsed.providerLimits,
      parsed.maxRejectsPerSession,
    );
    const urls = providerProxies(parsed.providerLimits, parsed.proxy);
    const direct: Egress[] =
      parsed.sourceAddresses.length > 0
        ? parsed.sourceAddresses.map((ip) => ({ name: ip, proxy: null, localAddress: ip }))
        : [{ name: 'direct', proxy: null }];
    this.#egresses = {} as Record<MxProvider, readonly Egress[]>;
    for (const [provider, list] of Object.entries(urls) as [MxProvider, readonly string[]][]) {
      const proxies = list.map((url) => socksProxyOf(url));
      this.#egresses[provider] = proxies.length > 0 ? proxies.map((proxy) => ({ name: proxy.redacted, proxy })) : direct;
    }
    this.#dns = new MxResolver({
      timeoutMs: parsed.timeoutMs,
      ...(parsed.dnsServers ? { servers: parsed.dnsServers } : {}),
    });
    this.#mailboxHosts = new MailboxHosts(this.#dns, MAILBOX_HOSTS);
    const all = new Map<string, Egress>();
    for (const list of Object.values(this.#egresses)) for (const egress of list) all.set(egress.name, egress);
    const carriers = [...all.values()].map((egress) => ({
      ...egress,
      carries: (host: string) => this.egressesOf(host).some((e) => e.name === egress.name),
    }));
    this.#quarantine = new EgressQuarantine(parsed.egressQuarantineMs);
    this.#health = new EgressHealth(
      [...all.values()].map((egress) => ({ id: egress.name, publicIp: publicIpOf(egress, parsed.egressPublicIps) })),
      {
        zones: parsed.dnsblZones,
        helo: parsed.helo,
        intervalMs: parsed.egressCheckIntervalMs,
        timeoutMs: parsed.timeoutMs,
        ...(parsed.dnsServers ? { servers: parsed.dnsServers } : {}),
      },
    );
    this.#healthChecked = this.#health.start().catch(() => undefined);
    this.#environment = new EgressEnvironments(this.#dns, carriers, {
      canaryDomains: parsed.canaryDomains,
      port: parsed.port,
    });
  }

  /** The resolver and outbound-SMTP checks this instance's verdicts depend on (CONTRACT §10). */
  get environment(): EgressEnvironments {
    return this.#environment;
  }

  /** Egresses a provider refused, and until when (CONTRACT §13). */
  get quarantine(): EgressQuarantine {
    return this.#quarantine;
  }

  /** Each egress's blocklist and identity checks (CONTRACT §13). */
  get health(): EgressHealth {
    return this.#health;
  }

  /** Every egress as `/readyz` shows it (CONTRACT §13). */
  egressReport(): EgressReport[] {
    return this.#health.checks.map((check) => {
      const quarantines = this.#quarantine.of(check.id).map(({ provider, until }) => ({ provider, until: until.toISOString() }));
      const state = check.listed ? 'listed' : quarantines.length > 0 ? 'blocked' : this.#health.degraded(check.id) ? 'degraded' : 'ok';
      const { id, publicIp, ptr, fcrdns, heloAligned, dnsbl, checkedAt } = check;
      return { id, publicIp, state, ptr, fcrdns, heloAligned, dnsbl, quarantines, checkedAt: checkedAt?.toISOString() ?? null };
    });
  }

  /** Connections currently open (or being opened) by this instance. */
  get activeConnections(): number {
    return this.#slots.inUse;
  }

  /** The limits this instance applies to a provider's MX hosts (built-in table plus overrides). */
  providerLimits(provider: MxProvider): ProviderLimits {
    return this.#providers[provider];
  }

  /**
   * Who hosts `domain`'s mailboxes, given an MX host of it (CONTRACT §12), for a caller that writes a domain's
   * addresses without probing them (a domain known catch-all): the same remembered lookup as `probeDomain`'s.
   */
  mailboxHostOf(domain: string, mxHost: string): Promise<MailboxHost> {
    return this.#mailboxHosts.of(toAsciiDomain(domain.trim()), providerOfHost(mxHost));
  }

  /** The egresses that connections to `host` may leave through (by its provider). */
  egressesOf(host: string): readonly Egress[] {
    return this.#egresses[providerOfHost(host)];
  }

  /** Most sessions ever open at once to `host` through this instance, per egress, the largest (0 if never used). */
  peakSessions(host: string): number {
    const name = host.toLowerCase();
    return Math.max(0, ...this.egressesOf(name).map((egress) => this.#channels.get(this.#channelKey(name, egress))?.peakSessions ?? 0));
  }

  // Limits and pacing hold per host and egress: the same host from another address is another client to it.
  #channelKey(host: string, egress: Egress): string {
    return `${host} via ${egress.name}`;
  }

  /**
   * The channel a domain's round on `name` uses: of the egresses whose checks did not fail, the least busy
   * with this host. A job's domains thus spread over the egresses; one domain's addresses stay on one.
   */
  #channel(name: string): HostChannel {
    const host = name.toLowerCase();
    const egresses = this.egressesOf(host);
    const refusedBy = quarantineKey(providerOfHost(host), host);
    const usable = egresses.filter(
      (egress) =>
        this.#environment.usable(egress.name) && !this.#health.listed(egress.name) && !this.#quarantine.holding(egress.name, refusedBy),
    );
    let best: HostChannel | undefined;
    for (const egress of usable.length > 0 ? usable : egresses) {
      const channel = this.#egressChannel(host, egress);
      if (best === undefined || channel.load < best.load) best = channel;
    }
    if (!best) throw new Error(`no egress for ${host}`);
    return best;
  }

  #egressChannel(host: string, egress: Egress): HostChannel {
    const key = this.#channelKey(host, egress);
    let channel = this.#channels.get(key);
    if (!channel) {
      if (this.#channels.size >= MAX_IDLE_CHANNELS) {
        for (const [name, known] of this.#channels) if (known.idle) this.#channels.delete(name);
      }
      const o = this.#options;
      const provider = providerOfHost(host);
      channel = new HostChannel(host, provider, this.#providers[provider], {
        helo: o.helo,
        from: o.from,
        port: o.port,
        timeoutMs: o.timeoutMs,
        maxReconnects: o.maxReconnects,
        batchSize: o.rcptPerTransaction,
        slots: this.#slots,
        resolveHost: (mx) => this.#dns.resolveHost(mx),
        proxy: egress.proxy,
        ...(egress.localAddress ? { localAddress: egress.localAddress } : {}),
        egress: egress.name,
        budget: o.budget ?? null,
        quarantine: this.#quarantine,
      });
      this.#channels.set(key, channel);
    }
    return channel;
  }

  /**
   * Full check of addresses that all belong to `domain`: MX resolved once, catch-all detected once,
   * addresses probed over as few sessions as possible. Outcomes come back in input order;
   * `onResult` sees each one as soon as it is final. Rejects with the signal's reason on abort.
   */
  async probeDomain(domain: string, emails: readonly string[], options: ProbeDomainOptions = {}): Promise<DomainOutcome> {
    const { signal } = options;
    signal?.throwIfAborted();
    const asciiDomain = toAsciiDomain(domain.trim());
    const outcomes = new DomainOutcomes(asciiDomain, emails, this.#entries(asciiDomain, emails), options.onResult);
    if (outcomes.addresses.length === 0) return outcomes.done(null, null);
    const [lookup, environment] = await Promise.all([this.#dns.lookupMx(asciiDomain), this.#environment.current(), this.#healthChecked]);
    signal?.throwIfAborted();
    if (lookup.kind !== 'mx') return outcomes.settleAll(dnsOnlyVerdict(lookup, environment.dns));
    const unreachable = this.#unreachable(lookup.hosts, environment);
    if (unreachable) return outcomes.settleAll(unreachable);
    return this.#probeMxHosts(asciiDomain, lookup.hosts, outcomes, options);
  }

  /** Why no MX host can be asked from this worker (port 25 blocked, every egress listed), else null. */
  #unreachable(hosts: readonly MxHost[], environment: EnvironmentState): { result: EmailResult; reason: string } | null {
    if (environment.smtp === 'blocked') return { result: 'Unknown', reason: REASONS.egressBlocked(this.#options.port) };
    const listed = this.#everyEgressListed(hosts[0]?.host ?? '');
    return listed ? { result: 'Unknown', reason: listed } : null;
  }

  /** The SMTP dialogue with the domain's MX hosts: each address settled as soon as it is final, the rest once it ends. */
  async #probeMxHosts(
    domain: string,
    hosts: readonly MxHost[],
    outcomes: DomainOutcomes,
    options: ProbeDomainOptions,
  ): Promise<DomainOutcome> {
    const provider = providerOfHost(hosts[0]?.host ?? '');
    const mailboxLookup = this.#mailboxHosts.of(domain, provider);
    const mailbox = new MailboxWait(mailboxLookup);
    const probe = new DomainProbe(this.#probeContext(options), domain, hosts, (address, finding) =>
      outcomes.settleAddress(address, mailbox, (entry) => outcomeOfFinding(entry, finding, provider)),
    );
    let result: DomainProbeResult;
    try {
      result = await probe.run(outcomes.addresses);
      for (const address of outcomes.addresses) {
        const finding = result.findings.get(address);
        outcomes.settleAddress(address, mailbox, (entry) => outcomeAfterProbe(entry, result.catchAll, finding, provider));
      }
      mailbox.release(await untilAborted(mailboxLookup, options.signal));
    } catch (error) {
      mailbox.abandon();
      throw error;
    }
    return outcomes.done(result.catchAll.value, result.lastHost ?? hosts[0]?.host ?? null);
  }

  #probeContext(options: ProbeDomainOptions): DomainProbeContext {
    const o = this.#options;
    return {
      greylistDelayMs: o.greylistDelayMs,
      greylistAttempts: options.attempts ?? o.greylistAttempts,
      channel: (host) => this.#channel(host),
      owner: options.owner ?? 'default',
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.catchAllSeed === undefined ? {} : { catchAllSeed: options.catchAllSeed }),
      ...(options.inTurn ? { inTurn: true } : {}),
      ...(options.knownNotCatchAll ? { knownNotCatchAll: true } : {}),
    };
  }

  /**
   * The free checks only (syntax, then MX or A record): addresses that fail them come back as
   * Invalid outcomes; the rest, including those whose DNS lookup failed, are `passed` unchanged.
   */
  async precheckDomain(
    domain: string,
    emails: readonly string[],
  ): Promise<{ domain: string; mxHost: string | null; failed: ProbeOutcome[]; passed: string[] }> {
    const asciiDomain = toAsciiDomain(domain.trim());
    const entries = this.#entries(asciiDomain, emails);
    const failed: ProbeOutcome[] = [];
    const candidates: Entry[] = [];
    for (const entry of entries) {
      if (entry.address === null) failed.push(outcome(entry, 'Invalid', 'precheck', REASONS.syntax, null));
      else candidates.push(entry);
    }
    if (candidates.length === 0) return { domain: asciiDomain, mxHost: null, failed, passed: [] };
    const [lookup, environment] = await Promise.all([this.#dns.lookupMx(asciiDomain), this.#environment.current()]);
    const passed = candidates.map((entry) => entry.email);
    if (lookup.kind === 'mx')
      return { domain: asciiDomain, mxHost: lookup.hosts[0]?.host ?? null, failed, passed };
    const verdict = dnsVerdict(lookup);
    // A failed lookup, or a denial by a resolver that denies everything, proves nothing: the paid check decides.
    const untrusted = lookup.kind === 'no-mail-host' && environment.dns === 'unreliable';
    if (verdict.result !== 'Invalid' || untrusted) return { domain: asciiDomain, mxHost: null, failed, passed };
    failed.push(...candidates.map((entry) => outcome(entry, 'Invalid', 'precheck', verdict.reason, null)));
    return { domain: asciiDomain, mxHost: null, failed, passed: [] };
  }

  /** The reason when every egress to `host` is on a blocklist (CONTRACT §13), else null. */
  #everyEgressListed(host: string): string | null {
    const egresses = this.egressesOf(host.toLowerCase());
    if (egresses.length === 0 || !egresses.every((egress) => this.#health.listed(egress.name))) return null;
    return `${EGRESS_HEALTH_CODES.listed}: every egress is on a blocklist (${egresses.map((egress) => egress.name).join(', ')})`;
  }

  #entries(domain: string, emails: readonly string[]): Entry[] {
    return emails.map((email) => {
      const normalized = normalizeEmail(email);
      const valid = isValidEmailSyntax(normalized);
      if (valid && domainOf(normalized) !== domain) throw new DomainMismatchError(email, domain);
      return { email, flags: emailFlags(normalized), address: valid ? normalized : null };
    });
  }
}
