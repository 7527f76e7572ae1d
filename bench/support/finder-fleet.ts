/**
 * The finder benchmark's SMTP fleet in a process of its own (forked by bench/finder.ts): FLEET_DOMAINS domains of
 * FLEET_PER_DOMAIN people (bench/support/finder-people.ts), each domain on its own MX host answering every command
 * FLEET_LATENCY_MS after the previous one; one in five accepts every address. IPC: sends `{ port, dnsServers }`
 * when listening, answers `stats` with the fleet's totals, exits on `stop`.
 */
import type { DomainSpec } from '../../test/support/mail-world/index.ts';
import { startMailWorld } from '../../test/support/mail-world/index.ts';
import { domainOf, exists, hostIpOf, isCatchAll, mailboxOf } from './finder-people.ts';

const domains = Number(process.env.FLEET_DOMAINS);
const perDomain = Number(process.env.FLEET_PER_DOMAIN);
const latencyMs = Number(process.env.FLEET_LATENCY_MS);

const description: Record<string, DomainSpec> = {};
for (let d = 0; d < domains; d++) {
  const mailboxes = Array.from({ length: perDomain }, (_, k) => k).filter((k) => exists(k, perDomain)).map((k) => mailboxOf(d, k));
  const behaviour = isCatchAll(d) ? { catchAll: true, latencyMs } : { mailboxes, latencyMs };
  description[domainOf(d)] = { mx: [{ host: `mx.${domainOf(d)}`, preference: 10, ip: hostIpOf(d), behaviour }] };
}

const world = await startMailWorld({ domains: description });
process.send!({ port: world.port, dnsServers: world.dnsServers });
process.on('message', (message: string) => {
  if (message === 'stats') process.send!(world.totals());
  if (message === 'stop') void world.stop().then(() => process.exit(0));
});
