/**
 * The benchmark's SMTP fleet in a process of its own (forked by bench/verification.ts), so the
 * servers' CPU is not charged to the worker's event loop: `domains` domains, each with its own MX host
 * on a 127.0.x.y address, every reply (greeting, MAIL, RCPT) after `latencyMs`; `user<k>@` exists,
 * `nobody<k>@` does not. IPC: sends `{ port, dnsServers }` when listening; answers `stats` with the
 * fleet's totals and `stop` by exiting.
 */
import type { DomainSpec } from '../../test/support/mail-world/index.ts';
import { startMailWorld } from '../../test/support/mail-world/index.ts';

const domains = Number(process.env.FLEET_DOMAINS);
const perDomain = Number(process.env.FLEET_ADDRESSES_PER_DOMAIN);
const latencyMs = Number(process.env.FLEET_LATENCY_MS);

const fleetDomain = (i: number) => `d${i}.bench`;

const description: Record<string, DomainSpec> = {};
for (let i = 0; i < domains; i += 1) {
  const domain = fleetDomain(i);
  const mailboxes = Array.from({ length: Math.ceil(perDomain / 2) }, (_, k) => `user${k}@${domain}`);
  const ip = `127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`;
  description[domain] = {
    mx: [{ host: `mx.${domain}`, preference: 10, ip, behaviour: { mailboxes, latencyMs } }],
  };
}

const world = await startMailWorld({ domains: description });
process.send!({ port: world.port, dnsServers: world.dnsServers });
process.on('message', (message: string) => {
  if (message === 'stats')
    process.send!({ ...world.totals(), maxConcurrentSessions: world.maxConcurrentSessions() });
  if (message === 'stop') void world.stop().then(() => process.exit(0));
});
