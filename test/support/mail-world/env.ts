import type { MailWorld } from '../../../src/sandbox/mail-world/world.ts';

/**
 * The one way to point a worker (a harness's or a process's) at a mail world: its DNS and SMTP port, with
 * test-sized SMTP deadlines. `overrides` for a test that needs other timings.
 */
export function mailWorldEnv(world: MailWorld, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    SMTP_PROBE_PORT: String(world.port),
    DNS_SERVERS: world.dnsServers.join(','),
    SMTP_PROBE_HELO: 'verifier.test',
    SMTP_PROBE_TIMEOUT_MS: '800',
    SMTP_GREYLIST_DELAY_MS: '200',
    // No later greylisting attempts unless a test asks for them (verification-greylist.test.ts).
    SMTP_GREYLIST_SCHEDULE: '',
    ...overrides,
  };
}
