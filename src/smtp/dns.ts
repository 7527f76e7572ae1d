import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';

export interface MxHost {
  host: string;
  preference: number;
}

/**
 * Where mail for a domain goes (RFC 5321 §5.1):
 * - `mx`: hosts in preference order; `implicit` when there is no MX and the domain's own A/AAAA is used;
 * - `null-mx`: the domain publishes a null MX (RFC 7505): it accepts no mail;
 * - `no-mail-host`: no MX and no A/AAAA (NXDOMAIN or no data);
 * - `dns-error`: the answer could not be obtained (SERVFAIL, timeout, ...), so nothing is known.
 */
export type MxLookup =
  | { kind: 'mx'; hosts: MxHost[]; implicit: boolean }
  | { kind: 'null-mx' }
  | { kind: 'no-mail-host' }
  | { kind: 'dns-error'; reason: string };

export type HostLookup =
  { kind: 'addresses'; addresses: string[] } | { kind: 'none' } | { kind: 'dns-error'; reason: string };

/** Records of one type at a name: none when the name or the type does not exist; `dns-error` when nothing is known. */
export type RecordLookup = { kind: 'records'; records: string[] } | { kind: 'dns-error'; reason: string };

// c-ares codes meaning "the name or the record type does not exist": a definitive answer.
const ABSENT_CODES = new Set(['ENOTFOUND', 'ENODATA']);

function errorCode(error: unknown): string {
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') return error.code;
  return 'EUNKNOWN';
}

type Attempt<T> = { ok: true; value: T } | { ok: false; absent: boolean; code: string };

async function attempt<T>(lookup: () => Promise<T>): Promise<Attempt<T>> {
  try {
    return { ok: true, value: await lookup() };
  } catch (error) {
    const code = errorCode(error);
    return { ok: false, absent: ABSENT_CODES.has(code), code };
  }
}

/** MX and address lookups through `node:dns/promises`, against the configured servers or the system's. */
export class MxResolver {
  readonly #resolver: Resolver;

  /** `servers`: `ip`, `ip:port` or `[ipv6]:port` entries, as `Resolver.setServers` takes them. */
  constructor(options: { servers?: readonly string[]; timeoutMs: number }) {
    // c-ares doubles the timeout on its retry: t + 2t keeps a dead server's lookup within one deadline.
    this.#resolver = new Resolver({ timeout: Math.max(100, Math.ceil(options.timeoutMs / 3)), tries: 2 });
    if (options.servers && options.servers.length > 0) this.#resolver.setServers([...options.servers]);
  }

  async lookupMx(domain: string): Promise<MxLookup> {
    const mx = await attempt(() => this.#resolver.resolveMx(domain));
    if (!mx.ok) {
      if (!mx.absent) return { kind: 'dns-error', reason: `MX lookup for ${domain} failed (${mx.code})` };
      // NXDOMAIN: the domain itself does not exist, so there is no A record to fall back to either.
      if (mx.code === 'ENOTFOUND') return { kind: 'no-mail-host' };
      return this.#implicitMx(domain);
    }
    // RFC 7505: a single MX whose exchange is the root ('.', which c-ares returns as '').
    if (mx.value.length === 1 && mx.value[0]?.exchange === '') return { kind: 'null-mx' };
    const hosts = mx.value
      .filter((record) => record.exchange !== '')
      .map((record) => ({
        host: record.exchange.toLowerCase().replace(/\.$/, ''),
        preference: record.priority,
      }))
      .sort((a, b) => a.preference - b.preference);
    if (hosts.length === 0) return this.#implicitMx(domain);
    return { kind: 'mx', hosts, implicit: false };
  }

  /** RFC 5321 §5.1: without MX records the domain itself is the mail host, if it has an address. */
  async #implicitMx(domain: string): Promise<MxLookup> {
    const host = await this.resolveHost(domain);
    if (host.kind === 'dns-error') return host;
    if (host.kind === 'none') return { kind: 'no-mail-host' };
    return { kind: 'mx', hosts: [{ host: domain, preference: 0 }], implicit: true };
  }

  /** TXT records of `name`, each one's character-strings joined (as RFC 7208 §3.3 reads an SPF record). */
  lookupTxt(name: string): Promise<RecordLookup> {
    return this.#records('TXT', name, async () => (await this.#resolver.resolveTxt(name)).map((chunks) => chunks.join('')));
  }

  /** The CNAME targets of `name`. */
  lookupCname(name: string): Promise<RecordLookup> {
    return this.#records('CNAME', name, () => this.#resolver.resolveCname(name));
  }

  /** The IPv4 addresses of `name`. */
  lookupA(name: string): Promise<RecordLookup> {
    return this.#records('A', name, () => this.#resolver.resolve4(name));
  }

  async #records(type: string, name: string, lookup: () => Promise<string[]>): Promise<RecordLookup> {
    const found = await attempt(lookup);
    if (found.ok) return { kind: 'records', records: found.value };
    if (found.absent) return { kind: 'records', records: [] };
    return { kind: 'dns-error', reason: `${type} lookup for ${name} failed (${found.code})` };
  }

  /** IPv4 addresses first (what most MX hosts answer on), then IPv6. */
  async resolveHost(host: string): Promise<HostLookup> {
    if (isIP(host) !== 0) return { kind: 'addresses', addresses: [host] };
    const v4 = await attempt(() => this.#resolver.resolve4(host));
    if (v4.ok && v4.value.length > 0) return { kind: 'addresses', addresses: v4.value };
    if (!v4.ok && !v4.absent)
      return { kind: 'dns-error', reason: `A lookup for ${host} failed (${v4.code})` };
    const v6 = await attempt(() => this.#resolver.resolve6(host));
    if (v6.ok && v6.value.length > 0) return { kind: 'addresses', addresses: v6.value };
    if (!v6.ok && !v6.absent)
      return { kind: 'dns-error', reason: `AAAA lookup for ${host} failed (${v6.code})` };
    return { kind: 'none' };
  }
}
