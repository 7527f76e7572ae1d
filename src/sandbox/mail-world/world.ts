import { randomInt } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { ZoneEntry } from './dns-server.ts';
import { startDnsServer } from './dns-server.ts';
import type { RunningHost } from './smtp-host.ts';
import { SessionGauge, startHost } from './smtp-host.ts';
import type { HostBehaviour, MailHost, MailWorldDescription } from './types.ts';

export interface MailWorld {
  /** For the prober's `dnsServers` option. */
  dnsServers: string[];
  /** The one port every mail host listens on (the prober's `port` option). */
  port: number;
  /** Mail hosts by name (MX host name, or the domain for an A-record host). */
  servers: Readonly<Record<string, MailHost>>;
  /** DNS questions received, as `TYPE name`. */
  dnsQueries: readonly string[];
  /** Most sessions open at the same time, all hosts together, since the start or `resetPeak()`. */
  maxConcurrentSessions(): number;
  resetPeak(): void;
  /** Sums over all hosts. */
  totals(): { sessions: number; rcpts: number; dataCommands: number };
  /** Replaces a name's records from now on (null: the name is gone, NXDOMAIN), e.g. a blocklist entry that clears. */
  setRecord(name: string, entry: ZoneEntry | null): void;
  stop(): Promise<void>;
}

interface HostPlan {
  ip: string;
  behaviour: HostBehaviour;
}

const LOOPBACK = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function addHost(hosts: Map<string, HostPlan>, name: string, plan: HostPlan): void {
  if (!LOOPBACK.test(plan.ip))
    throw new Error(`mail world host ${name}: ${plan.ip} is not a 127.0.0.0/8 address`);
  const known = hosts.get(name);
  if (known && (known.ip !== plan.ip || !isDeepStrictEqual(known.behaviour, plan.behaviour))) {
    throw new Error(`mail world host ${name} is described twice, differently`);
  }
  for (const [other, otherPlan] of hosts) {
    if (other !== name && otherPlan.ip === plan.ip)
      throw new Error(`mail world hosts ${other} and ${name} share ${plan.ip}`);
  }
  hosts.set(name, plan);
}

/** DNS zone and mail hosts of a description. */
function plan(description: MailWorldDescription): {
  zone: Map<string, ZoneEntry>;
  hosts: Map<string, HostPlan>;
} {
  const zone = new Map<string, ZoneEntry>();
  const hosts = new Map<string, HostPlan>();
  const addA = (name: string, ip: string): void => {
    const entry = zone.get(name) ?? {};
    zone.set(name, { ...entry, a: [...new Set([...(entry.a ?? []), ip])] });
  };
  for (const [rawName, spec] of Object.entries(description.domains)) {
    const domain = rawName.toLowerCase();
    zone.set(domain, { ...zone.get(domain), ...(spec.servfail ? { servfail: true } : {}) });
    if (spec.nullMx) zone.set(domain, { ...zone.get(domain), mx: [{ exchange: '', priority: 0 }] });
    if (spec.mx) {
      zone.set(domain, {
        ...zone.get(domain),
        mx: spec.mx.map((mx) => ({ exchange: mx.host.toLowerCase(), priority: mx.preference })),
      });
      for (const mx of spec.mx) {
        addHost(hosts, mx.host.toLowerCase(), { ip: mx.ip, behaviour: mx.behaviour });
        addA(mx.host.toLowerCase(), mx.ip);
      }
    }
    if (spec.a) {
      addA(domain, spec.a.ip);
      if (spec.a.behaviour) addHost(hosts, domain, { ip: spec.a.ip, behaviour: spec.a.behaviour });
    }
  }
  // Extra records (gateway signals, blocklist answers, PTRs) add to what the domains gave the same name.
  for (const [rawName, records] of Object.entries(description.records ?? {})) {
    const name = rawName.toLowerCase();
    const { a, txt, cname, ...rest } = records;
    for (const ip of a ?? []) addA(name, ip);
    const entry = zone.get(name) ?? {};
    zone.set(name, {
      ...entry,
      ...rest,
      ...(txt ? { txt: [...(entry.txt ?? []), ...txt] } : {}),
      ...(cname ? { cname: cname.toLowerCase() } : {}),
    });
  }
  return { zone, hosts };
}

function isAddressInUse(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'EADDRINUSE';
}

/** Starts every host on one port, trying random high ports until one is free on every address. */
async function startHostsOnFreePort(
  hosts: Map<string, HostPlan>,
  gauge: SessionGauge,
): Promise<{ port: number; running: RunningHost[] }> {
  for (let attempt = 0; attempt < 25; attempt += 1) {
    const port = randomInt(20_000, 60_000);
    const running: RunningHost[] = [];
    try {
      for (const [name, { ip, behaviour }] of hosts)
        running.push(await startHost(name, ip, port, behaviour, gauge));
      return { port, running };
    } catch (error) {
      await Promise.all(running.map((host) => host.stop()));
      if (!isAddressInUse(error)) throw error;
    }
  }
  throw new Error('mail world: no port was free on every host address');
}

/**
 * Builds the world of a description: one DNS server on 127.0.0.1 and one mail server per host on
 * its own 127.0.0.x address, all on one shared port. Stop it when done.
 */
export async function startMailWorld(description: MailWorldDescription): Promise<MailWorld> {
  const { zone, hosts } = plan(description);
  const gauge = new SessionGauge();
  const dnsServer = await startDnsServer(zone, { authoritativeFor: description.authoritativeFor });
  let started: { port: number; running: RunningHost[] };
  try {
    started = await startHostsOnFreePort(hosts, gauge);
  } catch (error) {
    await dnsServer.stop();
    throw error;
  }
  const { port, running } = started;
  return {
    dnsServers: [dnsServer.address],
    port,
    servers: Object.fromEntries(running.map((host) => [host.name, host])),
    dnsQueries: dnsServer.queries,
    maxConcurrentSessions: () => gauge.max,
    resetPeak: () => gauge.resetPeak(),
    setRecord: (name, entry) => {
      if (entry) zone.set(name.toLowerCase(), entry);
      else zone.delete(name.toLowerCase());
    },
    totals: () => ({
      sessions: running.reduce((sum, host) => sum + host.stats.sessions, 0),
      rcpts: running.reduce((sum, host) => sum + host.stats.rcpts.length, 0),
      dataCommands: running.reduce((sum, host) => sum + host.stats.dataCommands, 0),
    }),
    stop: async () => {
      await Promise.all(running.map((host) => host.stop()));
      await dnsServer.stop();
    },
  };
}
