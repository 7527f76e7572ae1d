import { connect } from 'node:net';
import type { Socket } from 'node:net';
import type { SocksProxy } from '../domain/socks-proxy.ts';
import type { JobWarning } from '../domain/verification.ts';
import type { MxResolver } from './dns.ts';
import { SmtpProxyError } from './errors.ts';
import { connectThroughProxy } from './socks-connect.ts';

export type DnsHealth = 'ok' | 'unreliable' | 'unknown';
export type SmtpHealth = 'ok' | 'blocked' | 'unknown';

export interface EnvironmentState {
  dns: DnsHealth;
  smtp: SmtpHealth;
  checkedAt: Date | null;
  /** Egresses whose outbound SMTP check failed: taken out of use while the others carry on. */
  blockedEgresses: string[];
}

/** Reason codes (CONTRACT §10) that start the reason of an address the environment kept from a verdict. */
export const ENVIRONMENT_REASONS = {
  resolverUnreliable: 'resolver_unreliable',
  egressBlocked: 'smtp_egress_blocked',
} as const;

const GOOD_FOR_MS = 5 * 60_000;
// A bad or unknown state is looked at again soon: a resolver or a firewall that recovers is noticed quickly.
const BAD_FOR_MS = 30_000;
const BANNER_TIMEOUT_MS = 5_000;

/**
 * What a worker can trust of its surroundings, checked against well-known canary domains and cached:
 * - the resolver: if it denies the existence of every canary's mail host, its denials prove nothing;
 * - outbound SMTP: if no canary MX answers with a greeting, port 25 is blocked or filtered here.
 *   Each canary is reached through the egress of its provider, as probes would be; a proxy that
 *   fails itself (credentials, unreachable) says nothing about port 25, so the state stays `unknown`.
 * With no canary domains configured nothing is checked and both stay `unknown` (no effect on verdicts).
 */
export class SmtpEnvironment {
  readonly #dns: MxResolver;
  readonly #canaries: readonly string[];
  readonly #port: number;
  readonly #egress: (host: string) => SocksProxy | null;
  readonly #localAddress: string | undefined;
  readonly #carries: (host: string) => boolean;
  #state: EnvironmentState = { dns: 'unknown', smtp: 'unknown', checkedAt: null, blockedEgresses: [] };
  #validUntil = 0;
  #running: Promise<EnvironmentState> | null = null;

  constructor(
    dns: MxResolver,
    options: {
      canaryDomains: readonly string[];
      port: number;
      egress?: (host: string) => SocksProxy | null;
      /** The local address direct checks bind to (an egress of `SMTP_SOURCE_ADDRESSES`). */
      localAddress?: string;
      /** Whether probes of this MX host leave this way: only those canaries test this egress. */
      carries?: (host: string) => boolean;
    },
  ) {
    this.#dns = dns;
    this.#canaries = options.canaryDomains;
    this.#port = options.port;
    this.#egress = options.egress ?? (() => null);
    this.#localAddress = options.localAddress;
    this.#carries = options.carries ?? (() => true);
  }

  /** The last state seen, without checking. */
  get last(): EnvironmentState {
    return this.#state;
  }

  /** The cached state, checked again once it is stale (one check at a time, shared by every caller). */
  async current(): Promise<EnvironmentState> {
    if (this.#canaries.length === 0 || Date.now() < this.#validUntil) return this.#state;
    this.#running ??= this.#check().finally(() => (this.#running = null));
    return this.#running;
  }

  async #check(): Promise<EnvironmentState> {
    const lookups = await Promise.all(this.#canaries.map((domain) => this.#dns.lookupMx(domain)));
    const hosts = lookups.flatMap((lookup) => (lookup.kind === 'mx' ? [lookup.hosts[0]!.host] : []));
    const dns: DnsHealth = hosts.length > 0 ? 'ok' : lookups.every((l) => l.kind === 'no-mail-host') ? 'unreliable' : 'unknown';
    const carried = hosts.filter((host) => this.#carries(host));
    const smtp: SmtpHealth = carried.length === 0 ? 'unknown' : await this.#smtpHealth(carried);
    this.#state = { dns, smtp, checkedAt: new Date(), blockedEgresses: [] };
    this.#validUntil = Date.now() + (dns === 'ok' && smtp === 'ok' ? GOOD_FOR_MS : BAD_FOR_MS);
    return this.#state;
  }

  async #smtpHealth(hosts: readonly string[]): Promise<SmtpHealth> {
    const greets = await Promise.all(
      hosts.map(async (host): Promise<Greeting> => {
        const resolved = await this.#dns.resolveHost(host);
        if (resolved.kind !== 'addresses') return 'silent';
        return greeting(host, resolved.addresses[0]!, this.#port, this.#egress(host), this.#localAddress);
      }),
    );
    if (greets.includes('greeted')) return 'ok';
    return greets.includes('proxy-failed') ? 'unknown' : 'blocked';
  }
}

type Greeting = 'greeted' | 'silent' | 'proxy-failed';

/** Connects and waits for the first line of a greeting; the connection is closed without a word either way. */
async function greeting(
  host: string,
  address: string,
  port: number,
  proxy: SocksProxy | null,
  localAddress: string | undefined,
): Promise<Greeting> {
  let socket: Socket;
  if (proxy) {
    try {
      socket = await connectThroughProxy({ host, ip: address, port, timeoutMs: BANNER_TIMEOUT_MS, proxy });
    } catch (error) {
      return error instanceof SmtpProxyError ? 'proxy-failed' : 'silent';
    }
  } else {
    socket = connect({ host: address, port, ...(localAddress ? { localAddress } : {}) });
  }
  return new Promise((resolve) => {
    const finish = (ok: boolean) => {
      socket.destroy();
      resolve(ok ? 'greeted' : 'silent');
    };
    socket.setTimeout(BANNER_TIMEOUT_MS, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('data', (data: Buffer) => finish(/^\d{3}[ -]/.test(data.toString('latin1'))));
    socket.once('end', () => finish(false));
  });
}

/**
 * The checks of every egress (CONTRACT §11), each through its own proxy or source address against the canaries
 * whose provider's probes leave that way (an egress no canary's provider uses stays `unknown`), and what they
 * mean together: SMTP is `ok` while any egress reaches a mail server, `blocked` when none does; an egress
 * whose check failed is named in `blockedEgresses` and not used while another is.
 */
export class EgressEnvironments {
  readonly #each: Map<string, SmtpEnvironment>;
  #state: EnvironmentState = { dns: 'unknown', smtp: 'unknown', checkedAt: null, blockedEgresses: [] };

  constructor(
    dns: MxResolver,
    egresses: readonly { name: string; proxy: SocksProxy | null; localAddress?: string; carries: (host: string) => boolean }[],
    options: { canaryDomains: readonly string[]; port: number },
  ) {
    this.#each = new Map(
      egresses.map((egress) => [
        egress.name,
        new SmtpEnvironment(dns, {
          ...options,
          egress: () => egress.proxy,
          carries: egress.carries,
          ...(egress.localAddress ? { localAddress: egress.localAddress } : {}),
        }),
      ]),
    );
  }

  get last(): EnvironmentState {
    return this.#state;
  }

  /** False only for an egress whose outbound SMTP check failed. */
  usable(egress: string): boolean {
    return this.#each.get(egress)?.last.smtp !== 'blocked';
  }

  async current(): Promise<EnvironmentState> {
    const names = [...this.#each.keys()];
    const states = await Promise.all([...this.#each.values()].map((environment) => environment.current()));
    const dns: DnsHealth = states.some((s) => s.dns === 'ok') ? 'ok' : states.some((s) => s.dns === 'unreliable') ? 'unreliable' : 'unknown';
    const smtp: SmtpHealth = states.some((s) => s.smtp === 'ok')
      ? 'ok'
      : states.length > 0 && states.every((s) => s.smtp === 'blocked')
        ? 'blocked'
        : 'unknown';
    const blockedEgresses = names.filter((_, i) => states[i]?.smtp === 'blocked');
    const checked = states.map((s) => s.checkedAt?.getTime() ?? 0);
    const checkedAt = checked.some((t) => t > 0) ? new Date(Math.max(...checked)) : null;
    this.#state = { dns, smtp, checkedAt, blockedEgresses };
    return this.#state;
  }
}

/** What a state means for the job that saw it (CONTRACT §10 `warnings`). */
export function environmentWarnings(state: EnvironmentState): JobWarning[] {
  const warnings: JobWarning[] = [];
  if (state.dns === 'unreliable')
    warnings.push({
      code: ENVIRONMENT_REASONS.resolverUnreliable,
      message: 'The DNS resolver denies well-known mail domains too; no address was called Invalid from its answers.',
    });
  if (state.smtp === 'blocked')
    warnings.push({
      code: ENVIRONMENT_REASONS.egressBlocked,
      message: 'Outbound SMTP (port 25) reaches no mail server from this worker; addresses were left Unknown.',
    });
  else if (state.blockedEgresses.length > 0)
    warnings.push({
      code: ENVIRONMENT_REASONS.egressBlocked,
      message: `Outbound SMTP (port 25) reaches no mail server from egress ${state.blockedEgresses.join(', ')}; it was taken out of use and the other egresses carried on.`,
    });
  return warnings;
}
