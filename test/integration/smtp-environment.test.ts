import { afterEach, describe, expect, it } from 'vitest';
import { startDnsServer } from '../../src/sandbox/mail-world/dns-server.ts';
import type { HostBehaviour, MailWorldDescription } from '../support/mail-world/index.ts';
import { allResults, inStage, listWithEmails, startJob, startVerificationWorld, waitForJob, type VerificationWorld } from '../support/verification.ts';

const CANARIES = 'canary-one.test,canary-two.test';

/** Two canary domains and one company domain, every MX host behaving as `behaviour`; `gone.test` does not exist. */
function world(behaviour: HostBehaviour, ipBase: number): MailWorldDescription {
  const host = (name: string, i: number) => ({ host: `mx.${name}`, preference: 10, ip: `127.0.${ipBase}.${i}`, behaviour });
  return {
    domains: {
      'canary-one.test': { mx: [host('canary-one.test', 1)] },
      'canary-two.test': { mx: [host('canary-two.test', 2)] },
      'acme.test': { mx: [host('acme.test', 3)] },
    },
  };
}

let running: VerificationWorld | null = null;
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await running?.stop();
  running = null;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Runs an smtp_only job over `emails` and returns the job and its results by address. */
async function verify(vw: VerificationWorld, emails: string[]) {
  const { agent } = await vw.h.signup();
  const listId = await listWithEmails(agent, emails);
  const created = await startJob(agent, listId, 'smtp_only');
  const job = await waitForJob(agent, created.id, inStage('completed', 'failed'));
  const results = Object.fromEntries((await allResults(agent, job.id)).map((r) => [r.email, r]));
  return { job, results };
}

describe('the worker checks its resolver and outbound SMTP against canary domains (CONTRACT §10)', () => {
  it('with a resolver that answers the canaries, a domain it denies is Invalid as always, and the job has no warning', async () => {
    running = await startVerificationWorld(world({ mailboxes: ['jane@acme.test'] }, 91), { SMTP_CANARY_DOMAINS: CANARIES });
    const { job, results } = await verify(running, ['jane@acme.test', 'someone@gone.test']);
    expect(job.warnings).toEqual([]);
    expect(results['jane@acme.test']).toMatchObject({ result: 'Valid' });
    expect(results['someone@gone.test']).toMatchObject({ result: 'Invalid', reason: 'no MX or A record' });
  });

  it('with a resolver that denies every name, canaries included, no address is Invalid from its answers', async () => {
    const liar = await startDnsServer(new Map());
    cleanups.push(() => liar.stop());
    running = await startVerificationWorld(world({ mailboxes: ['jane@acme.test'] }, 92), {
      SMTP_CANARY_DOMAINS: CANARIES,
      DNS_SERVERS: liar.address,
    });
    const { job, results } = await verify(running, ['jane@acme.test', 'someone@gone.test', 'ceo@gmail.com']);
    expect(job.verificationStage).toBe('completed');
    for (const email of ['jane@acme.test', 'someone@gone.test', 'ceo@gmail.com'])
      expect(results[email]).toMatchObject({ result: 'Unknown', reason: expect.stringMatching(/^resolver_unreliable: /) });
    expect(job.warnings).toEqual([{ code: 'resolver_unreliable', message: expect.any(String) }]);
    expect(liar.queries).toEqual(expect.arrayContaining(['MX canary-one.test', 'MX canary-two.test']));
  });

  for (const [what, behaviour, ipBase] of [
    ['refused on port 25 everywhere', { refused: true }, 93],
    ['accepted but never greeted (a blackholed port)', { silent: true }, 94],
  ] as const) {
    it(`with connections ${what}, addresses are Unknown smtp_egress_blocked and the job says why`, async () => {
      running = await startVerificationWorld(world(behaviour, ipBase), { SMTP_CANARY_DOMAINS: CANARIES, SMTP_PROBE_TIMEOUT_MS: '3000' });
      const emails = Array.from({ length: 20 }, (_, i) => `person${i}@acme.test`);
      const { job, results } = await verify(running, [...emails, 'someone@gone.test']);
      expect(job.verificationStage).toBe('completed');
      for (const email of emails)
        expect(results[email]).toMatchObject({ result: 'Unknown', reason: expect.stringMatching(/^smtp_egress_blocked: /), mxProvider: null });
      // What DNS alone proves still holds: the resolver answers the canaries.
      expect(results['someone@gone.test']).toMatchObject({ result: 'Invalid' });
      expect(job.warnings).toEqual([{ code: 'smtp_egress_blocked', message: expect.any(String) }]);
      // Nothing was asked of the company's own host: the verdict came from the canary check, not a timeout per domain.
      expect(running.world.servers['mx.acme.test']?.stats.sessions ?? 0).toBe(0);
    });
  }
});
