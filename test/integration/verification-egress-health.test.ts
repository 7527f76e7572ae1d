import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Agent } from '../support/agent.ts';
import { eventually } from '../support/eventually.ts';
import type { DomainSpec, MailWorld } from '../support/mail-world/index.ts';
import { mailWorldEnv, startMailWorld } from '../support/mail-world/index.ts';
import { allResults, inStage, listWithEmails, startJob, waitForJob } from '../support/verification.ts';
import { type ServiceProcess, startServiceProcess } from '../support/worker-process.ts';

/**
 * CONTRACT §13 self-checks, against the mail world's DNS. Two egresses (source addresses 127.0.0.2 and 127.0.0.3,
 * public 192.0.2.2 and 192.0.2.3). The test zone `bl.test` lists 192.0.2.2 (127.0.0.2) and refuses to answer for
 * 192.0.2.3 (127.255.255.254, as Spamhaus answers a public resolver). 192.0.2.3 has a forward-confirmed PTR equal
 * to our HELO; 192.0.2.2 has no PTR.
 */
const LISTED = '127.0.0.2';
const CLEAN = '127.0.0.3';
const ZONE = 'bl.test';
const HELO = 'verifier.test';
const LISTING = `2.2.0.192.${ZONE}`;

function worldDomains(prefix: string): Record<string, DomainSpec> {
  return Object.fromEntries(
    Array.from({ length: 4 }, (_, i) => [
      `${prefix}${i}.test`,
      { mx: [{ host: `mx.${prefix}${i}.test`, preference: 10, ip: `127.0.2.${(prefix === 'a' ? 10 : 30) + i}`, behaviour: { mailboxes: [`user0@${prefix}${i}.test`], starttls: false } }] },
    ]),
  );
}

let world: MailWorld;
let service: ServiceProcess;
let agent: Agent;

beforeAll(async () => {
  world = await startMailWorld({
    domains: { ...worldDomains('a'), ...worldDomains('b') },
    records: {
      [LISTING]: { a: ['127.0.0.2'] },
      [`3.2.0.192.${ZONE}`]: { a: ['127.255.255.254'] },
      '3.2.0.192.in-addr.arpa': { ptr: [HELO] },
      [HELO]: { a: ['192.0.2.3'] },
    },
  });
  service = await startServiceProcess(
    {
      ...mailWorldEnv(world, { SMTP_PROBE_HELO: HELO }),
      SMTP_PROBE_TIMEOUT_MS: '3000',
      SMTP_SOURCE_ADDRESSES: `${LISTED},${CLEAN}`,
      SMTP_EGRESS_PUBLIC_IPS: `${LISTED}=192.0.2.2,${CLEAN}=192.0.2.3`,
      DNSBL_ZONES: ZONE,
      EGRESS_CHECK_INTERVAL: '1s',
      DATABASE_URL: inject('databaseUrl'),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: `egress-health-${randomUUID()}`,
      APP_ORIGINS: 'http://app.test',
    },
    'all',
  );
  agent = new Agent({ request: (input, init) => fetch(`${service.url}${input}`, init) });
  agent.origin = 'http://app.test';
  const signup = await agent.post('/api/auth/signup', { email: `h-${randomUUID()}@example.test`, password: 'correct horse battery', organizationName: 'Health' });
  expect(signup.status).toBe(201);
});

afterAll(async () => {
  await service?.kill();
  await world?.stop();
});

const sources = (prefix: string) =>
  new Set(Array.from({ length: 4 }, (_, i) => world.servers[`mx.${prefix}${i}.test`]!.stats.log.map((s) => s.remote.split(':')[0])).flat());

async function verify(prefix: string) {
  const emails = Array.from({ length: 4 }, (_, i) => [`user0@${prefix}${i}.test`, `nobody@${prefix}${i}.test`]).flat();
  const created = await startJob(agent, await listWithEmails(agent, emails), 'smtp_only');
  const job = await waitForJob(agent, created.id, inStage('completed', 'failed'), 120_000);
  expect(job).toMatchObject({ verificationStage: 'completed', smtpValidCount: 4, smtpInvalidCount: 4, smtpUnknownCount: 0 });
  expect(await allResults(agent, job.id)).toHaveLength(emails.length);
  return job;
}

describe('egress self-checks (CONTRACT §13)', () => {
  it('a listed egress is not used, a refused answer keeps an egress in use, identity is reported; a listing that clears brings it back', { timeout: 240_000 }, async () => {
    const ready = await agent.get('/readyz');
    expect(ready.body.egress).toEqual([
      expect.objectContaining({ id: LISTED, publicIp: '192.0.2.2', state: 'listed', ptr: null, fcrdns: false, heloAligned: false, dnsbl: [{ zone: ZONE, answer: '127.0.0.2' }], quarantines: [] }),
      expect.objectContaining({ id: CLEAN, publicIp: '192.0.2.3', state: 'ok', ptr: HELO, fcrdns: true, heloAligned: true, dnsbl: [{ zone: ZONE, answer: '127.255.255.254' }] }),
    ]);

    // The dashboard's settings read the same through a session route; without a session, nothing.
    const settings = await agent.get('/api/settings/egress');
    expect(settings.status).toBe(200);
    expect(settings.body.egress.map((e: { id: string; state: string }) => [e.id, e.state])).toEqual([
      [LISTED, 'listed'],
      [CLEAN, 'ok'],
    ]);
    expect((await fetch(`${service.url}/api/settings/egress`)).status).toBe(401);

    const first = await verify('a');
    expect(sources('a')).toEqual(new Set([CLEAN]));
    expect(first.warnings.map((w: { code: string }) => w.code).sort()).toEqual(['egress_identity', 'egress_listed']);
    expect(first.warnings.find((w: { code: string }) => w.code === 'egress_identity').message).toMatch(/127\.0\.0\.2 \(192\.0\.2\.2\) has no PTR record/);

    world.setRecord(LISTING, null);
    await eventually(
      async () => (await agent.get('/readyz')).body.egress[0],
      (egress) => egress.state === 'degraded' && egress.dnsbl[0].answer === null,
      { what: 'the listing cleared at the next check', timeoutMs: 30_000, intervalMs: 200 },
    );
    const second = await verify('b');
    expect(sources('b').has(LISTED)).toBe(true);
    expect(second.warnings.map((w: { code: string }) => w.code)).toEqual(['egress_identity']);

    const metrics = await agent.get('/metrics');
    expect(metrics.text).toContain(`smtp_egress_state{egress="${LISTED}",state="degraded"} 1`);
  });
});
