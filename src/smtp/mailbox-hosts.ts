import type { MailboxHost } from '../domain/catch-all.ts';
import {
  autodiscoverNameOf,
  eopHostOf,
  isGateway,
  isSpfRecord,
  type MailboxDnsFacts,
  mailboxHostOf,
} from '../domain/mailbox-provider.ts';
import type { MxProvider } from '../domain/mx-provider.ts';
import type { MxResolver, RecordLookup } from './dns.ts';

export interface MailboxHostsOptions {
  /** Domains remembered at most; past it the oldest entry goes. */
  maxEntries: number;
  /** How long a domain's facts are reused. */
  ttlMs: number;
  /** How long facts with a failed lookup among them are reused (the failed one may answer next time). */
  failedTtlMs: number;
  now?: () => number;
}

/** The lookups this needs (an `MxResolver`: the prober's servers and deadline). */
export type SignalResolver = Pick<MxResolver, 'lookupTxt' | 'lookupCname' | 'lookupA'>;

interface Entry {
  facts: Promise<{ facts: MailboxDnsFacts; failed: boolean }>;
  expiresAt: number;
}

/** Facts found when a lookup failed: it just gives no signal (the address's verdict never depends on it). */
const recordsOf = (lookup: RecordLookup): string[] => (lookup.kind === 'records' ? lookup.records : []);

/**
 * Who hosts each domain's mailboxes (CONTRACT §12), for a worker's prober: DNS is asked only when the MX host is a
 * gateway (three queries in parallel: the domain's TXT, `autodiscover.<domain>`'s CNAME, the EOP host's A), once per
 * domain while its answer is remembered; concurrent callers share one lookup. A bounded map, as the host channels:
 * a million-address job over tens of thousands of domains keeps at most `maxEntries` small entries.
 */
export class MailboxHosts {
  readonly #dns: SignalResolver;
  readonly #options: Required<MailboxHostsOptions>;
  readonly #entries = new Map<string, Entry>();

  constructor(dns: SignalResolver, options: MailboxHostsOptions) {
    this.#dns = dns;
    this.#options = { now: Date.now, ...options };
  }

  /** Domains whose facts are remembered now. */
  get size(): number {
    return this.#entries.size;
  }

  /** Who hosts `domain`'s mailboxes when its MX host is one of `mxProvider`'s. Never rejects. */
  async of(domain: string, mxProvider: MxProvider): Promise<MailboxHost> {
    if (!isGateway(mxProvider)) return mailboxHostOf(mxProvider);
    return mailboxHostOf(mxProvider, await this.#facts(domain.toLowerCase()));
  }

  #facts(domain: string): Promise<MailboxDnsFacts> {
    const now = this.#options.now();
    const known = this.#entries.get(domain);
    if (known && known.expiresAt > now) return known.facts.then(({ facts }) => facts);
    this.#entries.delete(domain);
    if (this.#entries.size >= this.#options.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    const entry: Entry = { facts: this.#lookUp(domain), expiresAt: now + this.#options.ttlMs };
    this.#entries.set(domain, entry);
    return entry.facts.then(({ facts, failed }) => {
      if (failed) entry.expiresAt = Math.min(entry.expiresAt, this.#options.now() + this.#options.failedTtlMs);
      return facts;
    });
  }

  async #lookUp(domain: string): Promise<{ facts: MailboxDnsFacts; failed: boolean }> {
    const [txt, autodiscover, eop] = await Promise.all([
      this.#dns.lookupTxt(domain),
      this.#dns.lookupCname(autodiscoverNameOf(domain)),
      this.#dns.lookupA(eopHostOf(domain)),
    ]);
    return {
      facts: {
        // Only the SPF records are kept: a domain's other TXT records (site verifications, ...) can be many.
        spf: recordsOf(txt).filter(isSpfRecord),
        autodiscover: recordsOf(autodiscover),
        eop: recordsOf(eop).length > 0,
      },
      failed: [txt, autodiscover, eop].some((lookup) => lookup.kind === 'dns-error'),
    };
  }
}
