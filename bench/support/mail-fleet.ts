/**
 * The benchmark's SMTP fleet in a process of its own (forked by bench/verification.ts), so the
 * servers' CPU is not charged to the worker's event loop. FLEET_GROUPS is a JSON list of groups
 * `{ prefix, domains, perDomain, shared?, sharedHost? }`: `domains` domains `<prefix><i>.bench`, each
 * with its own MX host answering every command `latencyMs` after the previous one (smtp-server's
 * one-at-a-time processing), except the first `shared` domains, which all name `sharedHost` as MX: a
 * PIPELINING host that answers each command `latencyMs` after it arrived (round-trip bound).
 * `user<k>@` exists, `nobody<k>@` does not. IPC: sends `{ port, dnsServers }` when listening; answers
 * `stats` with the fleet's totals (and the shared hosts' peak sessions, overall and per client address), `lag`
 * with how late its event loop ran since the last `lag` (every reply is a timer here, so this is how much later
 * than `latencyMs` the fleet answered while the machine was busy), `sessions` with the times of every session begun
 * since the last `sessions` (`FleetSession`), and `stop` by exiting.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { DomainSpec, HostBehaviour } from '../../test/support/mail-world/index.ts';
import { startMailWorld } from '../../test/support/mail-world/index.ts';

export interface FleetGroup {
  prefix: string;
  domains: number;
  perDomain: number;
  shared?: number;
  sharedHost?: string;
  /**
   * false: the shared host is an ordinary one (one command at a time, no PIPELINING, every reply L late),
   * so its per-address limit, not the round trips, bounds what reaches it.
   */
  sharedPipelining?: boolean;
}

/** One session as the fleet saw it: accepted, its first MAIL FROM read, closed (ms since the epoch; null: not yet). */
export type FleetSession = [acceptedAt: number, firstMailAt: number | null, closedAt: number | null];

const groups = JSON.parse(process.env.FLEET_GROUPS ?? '[]') as FleetGroup[];
const latencyMs = Number(process.env.FLEET_LATENCY_MS);

const description: Record<string, DomainSpec> = {};
let hostIndex = 0;
const nextIp = () => {
  const i = hostIndex++;
  return `127.${1 + Math.floor(i / 62_500)}.${1 + (Math.floor(i / 250) % 250)}.${1 + (i % 250)}`;
};
const sharedHosts: string[] = [];
for (const group of groups) {
  const domains = Array.from({ length: group.domains }, (_, i) => `${group.prefix}${i}.bench`);
  const mailboxes = (domain: string) =>
    Array.from({ length: Math.ceil(group.perDomain / 2) }, (_, k) => `user${k}@${domain}`);
  const shared = domains.slice(0, group.shared ?? 0);
  if (shared.length > 0 && group.sharedHost) {
    const behaviour: HostBehaviour =
      group.sharedPipelining === false
        ? { mailboxes: shared.flatMap(mailboxes), latencyMs, pipelining: false, starttls: false }
        : { mailboxes: shared.flatMap(mailboxes), latencyMs, roundTripBound: true };
    const ip = nextIp();
    sharedHosts.push(group.sharedHost);
    for (const domain of shared)
      description[domain] = { mx: [{ host: group.sharedHost, preference: 10, ip, behaviour }] };
  }
  for (const domain of domains.slice(shared.length)) {
    description[domain] = {
      mx: [{ host: `mx.${domain}`, preference: 10, ip: nextIp(), behaviour: { mailboxes: mailboxes(domain), latencyMs } }],
    };
  }
}

const LAG_RESOLUTION_MS = 5;
const loopDelay = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
loopDelay.enable();

const world = await startMailWorld({ domains: description });
// Per host: how many of its sessions `sessions` has reported.
const reported = new Map<string, number>();
process.send!({ port: world.port, dnsServers: world.dnsServers });
process.on('message', (message: string) => {
  if (message === 'stats')
    process.send!({
      ...world.totals(),
      maxConcurrentSessions: world.maxConcurrentSessions(),
      // Per host of a group ("f…"): its most sessions at once, and its sessions so far.
      hostPeaks: Object.fromEntries(Object.entries(world.servers).map(([h, s]) => [h, [s.stats.maxConcurrentSessions, s.stats.sessions]])),
      // Per host: the commands its sessions sent so far, by verb.
      hostVerbs: Object.fromEntries(Object.entries(world.servers).map(([h, s]) => [h, s.stats.commandsByVerb])),
      sharedPeaks: Object.fromEntries(sharedHosts.map((h) => [h, world.servers[h]?.stats.maxConcurrentSessions ?? 0])),
      // The fleet's own count of sessions at once per client address: what the budget must hold to.
      sharedBySource: Object.fromEntries(sharedHosts.map((h) => [h, world.servers[h]?.stats.maxConcurrentBySource ?? {}])),
    });
  if (message === 'lag') {
    // The histogram holds the monitor's whole timer intervals: its lateness is what exceeds the resolution.
    process.send!({ meanMs: loopDelay.mean / 1e6 - LAG_RESOLUTION_MS, p99Ms: loopDelay.percentile(99) / 1e6 - LAG_RESOLUTION_MS });
    loopDelay.reset();
  }
  if (message === 'sessions') {
    const sessions: FleetSession[] = [];
    for (const [host, server] of Object.entries(world.servers)) {
      const log = server.stats.log;
      for (const record of log.slice(reported.get(host) ?? 0)) sessions.push([record.acceptedAt, record.firstMailAt ?? null, record.closedAt ?? null]);
      reported.set(host, log.length);
    }
    process.send!({ sessions });
  }
  if (message === 'stop') void world.stop().then(() => process.exit(0));
});
