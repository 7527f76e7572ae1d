import { afterEach, describe, expect, it } from 'vitest';
import type { HostBehaviour, MailWorldDescription } from '../support/mail-world/index.ts';
import {
  allResults,
  inStage,
  listWithEmails,
  startJob,
  startVerificationWorld,
  type VerificationWorld,
  waitForJob,
} from '../support/verification.ts';

/**
 * Issue 11's acceptance for blocked port 25 at list scale: 1,000 addresses over 200 domains whose MX hosts
 * resolve but where nothing answers SMTP. smtp-environment.test.ts covers the rules on a few addresses; this
 * is the size a user uploads, with the production probe timeout, so a verdict per domain after its timeout
 * would show.
 */
const DOMAINS = 200;
const PER_DOMAIN = 5;
const CANARIES = ['canary-one.test', 'canary-two.test'];

function world(behaviour: HostBehaviour, ipBase: number): MailWorldDescription {
  const names = [...Array.from({ length: DOMAINS }, (_, i) => `company${i}.test`), ...CANARIES];
  return {
    domains: Object.fromEntries(
      names.map((name, i) => [
        name,
        { mx: [{ host: `mx.${name}`, preference: 10, ip: `127.0.${ipBase}.${i + 1}`, behaviour }] },
      ]),
    ),
  };
}

const emails = Array.from(
  { length: DOMAINS * PER_DOMAIN },
  (_, i) => `person${i}@company${i % DOMAINS}.test`,
);

let running: VerificationWorld | null = null;
afterEach(async () => {
  await running?.stop();
  running = null;
});

describe('with port 25 blocked, a 1,000-address job ends at once with every address Unknown and says why', () => {
  for (const [what, behaviour, ipBase] of [
    ['refused everywhere', { refused: true }, 102],
    ['accepted but never greeted (blackholed)', { silent: true }, 103],
  ] as const) {
    it(`connections ${what}`, { timeout: 180_000 }, async () => {
      running = await startVerificationWorld(world(behaviour, ipBase), {
        SMTP_CANARY_DOMAINS: CANARIES.join(','),
        SMTP_PROBE_TIMEOUT_MS: '10000',
      });
      const { agent } = await running.h.signup();
      const listId = await listWithEmails(agent, emails);
      const started = Date.now();
      const created = await startJob(agent, listId, 'smtp_only');
      const job = await waitForJob(agent, created.id, inStage('completed', 'failed'), 150_000);
      console.log(
        `[egress acceptance] ${emails.length} addresses, connections ${what}: completed in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );

      expect(job).toMatchObject({
        verificationStage: 'completed',
        totalEmails: 1000,
        processedEmails: 1000,
        smtpUnknownCount: 1000,
        smtpValidCount: 0,
        smtpInvalidCount: 0,
        deferredCount: 0,
        warnings: [{ code: 'smtp_egress_blocked', message: expect.any(String) }],
      });
      const rows = await allResults(agent, job.id);
      expect(rows).toHaveLength(1000);
      const reasons = new Set(rows.map((r) => `${r.result} ${String(r.reason).split(':')[0]}`));
      expect([...reasons]).toEqual(['Unknown smtp_egress_blocked']);
      // The verdict came from the canary check, not a connection (and a timeout) per domain.
      const companySessions = Object.values(running.world.servers)
        .filter((host) => host.name.startsWith('mx.company'))
        .reduce((sum, host) => sum + host.stats.sessions, 0);
      expect(companySessions).toBe(0);
    });
  }
});
