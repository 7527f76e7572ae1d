import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { JobWarning } from '../domain/verification.ts';
import { log } from '../log.ts';

/** Reason and warning codes of CONTRACT §13 that start with the egress's own health. */
export const EGRESS_HEALTH_CODES = { listed: 'egress_listed', identity: 'egress_identity' } as const;

/** A zone's A record for our address (e.g. "127.0.0.2"), null for NXDOMAIN, or "unavailable". */
export interface DnsblAnswer {
  zone: string;
  answer: string | null;
}

export interface EgressCheck {
  id: string;
  publicIp: string | null;
  /** On a blocklist: no new session uses it until a later check is clean. */
  listed: boolean;
  ptr: string | null;
  /** The PTR name's A record holds the address (forward-confirmed reverse DNS). */
  fcrdns: boolean | null;
  /** `SMTP_PROBE_HELO` is the PTR name, or its A record holds the address. */
  heloAligned: boolean | null;
  dnsbl: DnsblAnswer[];
  checkedAt: Date | null;
}

const UNAVAILABLE = 'unavailable';

/**
 * What a DNSBL's A answer means: 127.0.0.0/24 is a listing; 127.255.255.0/24 is the list refusing to answer
 * (Spamhaus says so to public resolvers and to unlicensed volume), which, like SERVFAIL or a timeout, proves nothing.
 */
export function dnsblVerdict(answer: string | null): 'listed' | 'clean' | 'unavailable' {
  if (answer === null) return 'clean';
  return answer.startsWith('127.0.0.') ? 'listed' : 'unavailable';
}

/** `1.2.3.4` → `4.3.2.1`: how a DNSBL and the reverse zone name an IPv4 address. */
const reversed = (ip: string): string => ip.split('.').reverse().join('.');

function isPublicIpv4(ip: string): boolean {
  if (isIP(ip) !== 4) return false;
  const [a = 0, b = 0] = ip.split('.').map(Number);
  return !(a === 10 || a === 127 || a === 0 || (a === 172 && b >= 16 && b < 32) || (a === 192 && b === 168) || (a === 169 && b === 254) || (a === 100 && b >= 64 && b < 128));
}

/**
 * The public address of an egress (CONTRACT §13): what `SMTP_EGRESS_PUBLIC_IPS` maps its source address or its
 * proxy's `host:port` to, else the source address itself when it is public; null when unknown (nothing checked).
 */
export function publicIpOf(egress: { localAddress?: string; proxy: { label: string } | null }, map: Readonly<Record<string, string>>): string | null {
  const key = egress.proxy ? egress.proxy.label : egress.localAddress;
  if (key === undefined) return map.direct ?? null;
  return map[key] ?? (!egress.proxy && isPublicIpv4(key) ? key : null);
}

const sameName = (a: string, b: string): boolean => a.toLowerCase().replace(/\.$/, '') === b.toLowerCase().replace(/\.$/, '');

/**
 * Each egress's standing in the mail world, looked up at start and every `intervalMs` through `DNS_SERVERS`:
 * its public address on every `DNSBL_ZONES` zone, its PTR, whether that is forward-confirmed, and whether our
 * HELO name aligns with it. A listed egress is left out of new sessions; a misaligned one stays in use, named.
 */
export class EgressHealth {
  readonly #resolver: Resolver;
  readonly #zones: readonly string[];
  readonly #helo: string;
  readonly #intervalMs: number;
  readonly #checks = new Map<string, EgressCheck>();
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;

  constructor(
    egresses: readonly { id: string; publicIp: string | null }[],
    options: { zones: readonly string[]; helo: string; intervalMs: number; servers?: readonly string[]; timeoutMs: number },
  ) {
    this.#resolver = new Resolver({ timeout: Math.max(100, Math.ceil(options.timeoutMs / 3)), tries: 2 });
    if (options.servers && options.servers.length > 0) this.#resolver.setServers([...options.servers]);
    this.#zones = options.zones;
    this.#helo = options.helo;
    this.#intervalMs = options.intervalMs;
    for (const { id, publicIp } of egresses)
      this.#checks.set(id, { id, publicIp, listed: false, ptr: null, fcrdns: null, heloAligned: null, dnsbl: [], checkedAt: null });
  }

  /** Checks now, then every interval (the timer keeps no process alive). Egresses without a public address are skipped. */
  start(): Promise<void> {
    if (this.#timer === null && [...this.#checks.values()].some((check) => check.publicIp !== null)) {
      this.#timer = setInterval(() => void this.checkNow(), this.#intervalMs).unref();
      return this.checkNow();
    }
    return this.#running ?? Promise.resolve();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  checkNow(): Promise<void> {
    this.#running ??= Promise.all([...this.#checks.values()].map((check) => this.#check(check)))
      .then(() => undefined)
      .finally(() => (this.#running = null));
    return this.#running;
  }

  get checks(): EgressCheck[] {
    return [...this.#checks.values()];
  }

  listed(id: string): boolean {
    return this.#checks.get(id)?.listed ?? false;
  }

  /** PTR missing, not forward-confirmed, or HELO not aligned (only once checked). */
  degraded(id: string): boolean {
    const check = this.#checks.get(id);
    return check?.checkedAt != null && !(check.ptr !== null && check.fcrdns === true && check.heloAligned === true);
  }

  /** What a job that used this process's egresses is told (CONTRACT §13 `warnings`). */
  warnings(): JobWarning[] {
    const checks = this.checks;
    const warnings: JobWarning[] = [];
    const listed = checks.filter((check) => check.listed);
    if (listed.length > 0)
      warnings.push({
        code: EGRESS_HEALTH_CODES.listed,
        message: `Egress ${listed.map((c) => `${c.id} (${c.publicIp})`).join(', ')} is on a blocklist (${listed.flatMap((c) => c.dnsbl.filter((d) => dnsblVerdict(d.answer) === 'listed').map((d) => d.zone)).join(', ')}); it was not used until a check finds it clean.`,
      });
    const misaligned = checks.filter((check) => this.degraded(check.id));
    if (misaligned.length > 0)
      warnings.push({ code: EGRESS_HEALTH_CODES.identity, message: misaligned.map((check) => this.#identityAdvice(check)).join(' ') });
    return warnings;
  }

  #identityAdvice(check: EgressCheck): string {
    const ip = check.publicIp ?? '';
    if (check.ptr === null) return `Egress ${check.id} (${ip}) has no PTR record: ask whoever owns ${ip} to set its reverse DNS to a name whose A record is ${ip}, and use that name as SMTP_PROBE_HELO.`;
    if (!check.fcrdns) return `Egress ${check.id} (${ip}): its PTR name ${check.ptr} has no A record holding ${ip}; add one.`;
    return `Egress ${check.id} (${ip}): SMTP_PROBE_HELO ${this.#helo} is neither its PTR name ${check.ptr} nor a name whose A record holds ${ip}; set SMTP_PROBE_HELO=${check.ptr}.`;
  }

  async #check(check: EgressCheck): Promise<void> {
    const ip = check.publicIp;
    if (ip === null) return;
    const dnsbl = await Promise.all(this.#zones.map(async (zone) => ({ zone, answer: await this.#dnsbl(`${reversed(ip)}.${zone}`) })));
    // A zone that could not answer keeps what it said before: a listing stays until a clean answer.
    const listedBefore = new Set(check.dnsbl.filter((d) => dnsblVerdict(d.answer) === 'listed').map((d) => d.zone));
    check.listed = dnsbl.some((d) => dnsblVerdict(d.answer) === 'listed' || (dnsblVerdict(d.answer) === 'unavailable' && listedBefore.has(d.zone)));
    check.dnsbl = dnsbl;
    check.ptr = await this.#resolver.reverse(ip).then((names) => names[0]?.replace(/\.$/, '') ?? null, () => null);
    check.fcrdns = check.ptr === null ? false : await this.#holds(check.ptr, ip);
    check.heloAligned = (check.ptr !== null && sameName(check.ptr, this.#helo)) || (await this.#holds(this.#helo, ip));
    check.checkedAt = new Date();
    if (check.listed) log.warn('Egress on a blocklist: not used until a check finds it clean', { egress: check.id, publicIp: ip, dnsbl });
  }

  async #dnsbl(name: string): Promise<string | null> {
    try {
      return (await this.#resolver.resolve4(name))[0] ?? null;
    } catch (error) {
      const code = error instanceof Error && 'code' in error ? String(error.code) : '';
      return code === 'ENOTFOUND' ? null : UNAVAILABLE;
    }
  }

  async #holds(name: string, ip: string): Promise<boolean> {
    return this.#resolver.resolve4(name).then((addresses) => addresses.includes(ip), () => false);
  }
}
