import type { SmtpProberOptions } from '../../../src/smtp/prober.ts';
import { SmtpProber } from '../../../src/smtp/prober.ts';
import type { MailHost } from '../../../src/sandbox/mail-world/types.ts';
import type { MailWorld } from '../../../src/sandbox/mail-world/world.ts';

/** A prober aimed at `world` (its port and resolver), with short test timings unless overridden. */
export function testProber(world: MailWorld, overrides: Partial<SmtpProberOptions> = {}): SmtpProber {
  return new SmtpProber({
    helo: 'prober.test',
    from: 'verify@prober.test',
    port: world.port,
    timeoutMs: 2_000,
    concurrency: 100,
    perHost: 2,
    dnsServers: world.dnsServers,
    greylistDelayMs: 100,
    ...overrides,
  });
}

/** The host of `world` named `name` (an MX host name, or a domain with an A-record host). */
export function hostOf(world: MailWorld, name: string): MailHost {
  const found = world.servers[name];
  if (!found) throw new Error(`no host ${name} in this world`);
  return found;
}
