import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Agent } from '../support/agent.ts';
import type { DomainSpec, MailWorld } from '../support/mail-world/index.ts';
import { mailWorldEnv, startMailWorld } from '../support/mail-world/index.ts';
import { allResults, inStage, listWithEmails, startJob, waitForJob } from '../support/verification.ts';
import { type ServiceProcess, startServiceProcess } from '../support/worker-process.ts';

/**
 * CONTRACT §11: two egresses (source addresses 127.0.0.2 and 127.0.0.3); port 25 from 127.0.0.3 is dropped by
 * every mail host (they accept its connections and never greet). The service (ROLE=all, so `/readyz` reports
 * its worker's checks) takes that egress out of use, names it in `/readyz` and in the job's `warnings`, and the
 * other egress finishes the job.
 */
const DOMAINS = Array.from({ length: 6 }, (_, i) => `out${i}.test`);
const DROPPED = '127.0.0.3';

function worldDomains(): Record<string, DomainSpec> {
  const domains: Record<string, DomainSpec> = {};
  [...DOMAINS, 'canary.test'].forEach((domain, i) => {
    domains[domain] = {
      mx: [
        {
          host: `mx.${domain}`,
          preference: 10,
          ip: `127.0.0.${150 + i}`,
          behaviour: { mailboxes: [`user0@${domain}`, `user1@${domain}`], starttls: false, dropFrom: [DROPPED] },
        },
      ],
    };
  });
  return domains;
}

let world: MailWorld;
let service: ServiceProcess;

beforeAll(async () => {
  world = await startMailWorld({ domains: worldDomains() });
  service = await startServiceProcess(
    {
      ...mailWorldEnv(world),
      SMTP_PROBE_TIMEOUT_MS: '3000',
      SMTP_SOURCE_ADDRESSES: `127.0.0.2,${DROPPED}`,
      SMTP_CANARY_DOMAINS: 'canary.test',
      DATABASE_URL: inject('databaseUrl'),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: `egress-out-${randomUUID()}`,
      APP_ORIGINS: 'http://app.test',
    },
    'all',
  );
});

afterAll(async () => {
  await service?.kill();
  await world?.stop();
});

describe('an egress whose port 25 is dropped', () => {
  it('is taken out of use and named in /readyz and the job warnings; the other egress finishes the job', { timeout: 180_000 }, async () => {
    const agent = new Agent({ request: (input, init) => fetch(`${service.url}${input}`, init) });
    agent.origin = 'http://app.test';
    const signup = await agent.post('/api/auth/signup', {
      email: `e-${randomUUID()}@example.test`,
      password: 'correct horse battery',
      organizationName: 'Egress',
    });
    expect(signup.status).toBe(201);
    const emails = DOMAINS.flatMap((d) => [`user0@${d}`, `user1@${d}`, `nobody@${d}`]);
    const listId = await listWithEmails(agent, emails);
    const created = await startJob(agent, listId, 'smtp_only');
    const job = await waitForJob(agent, created.id, inStage('completed', 'failed'), 150_000);
    expect(job).toMatchObject({
      verificationStage: 'completed',
      smtpValidCount: DOMAINS.length * 2,
      smtpInvalidCount: DOMAINS.length,
      smtpUnknownCount: 0,
      warnings: [{ code: 'smtp_egress_blocked', message: expect.stringContaining(DROPPED) }],
    });
    expect(await allResults(agent, job.id)).toHaveLength(emails.length);
    // No probe left through the dropped egress: only its canary check reached a host from there.
    for (const domain of DOMAINS) {
      const remotes = world.servers[`mx.${domain}`]!.stats.log.map((session) => session.remote.split(':')[0]);
      expect(new Set(remotes)).toEqual(new Set(['127.0.0.2']));
    }
    const ready = await agent.get('/readyz');
    expect(ready.body).toMatchObject({ smtp: 'ok', smtpEgressesBlocked: [DROPPED] });
  });
});
