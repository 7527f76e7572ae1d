import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { MailWorldDescription } from '../support/mail-world/index.ts';
import { type SocksServer, startSocksServer } from '../support/socks-server.ts';
import { allResults, inStage, listWithEmails, startJob, startVerificationWorld, waitForJob, type VerificationWorld } from '../support/verification.ts';

const BIND = '127.0.0.81';
const CREDENTIALS = { user: 'worker', password: 'pa55-word' };

const world = (ipBase: number): MailWorldDescription => ({
  domains: {
    'acme.test': { mx: [{ host: 'mx.acme.test', preference: 10, ip: `127.0.${ipBase}.1`, behaviour: { mailboxes: ['jane@acme.test'] } }] },
  },
});

let proxy: SocksServer;
let running: VerificationWorld | null = null;
beforeAll(async () => {
  proxy = await startSocksServer({ bindAddress: BIND, credentials: CREDENTIALS });
});
afterEach(async () => {
  await running?.stop();
  running = null;
});
afterAll(async () => {
  await proxy?.stop();
});

async function verify(vw: VerificationWorld, emails: string[]) {
  const { agent } = await vw.h.signup();
  const listId = await listWithEmails(agent, emails);
  const created = await startJob(agent, listId, 'smtp_only');
  const job = await waitForJob(agent, created.id, inStage('completed', 'failed'));
  return { agent, job, results: Object.fromEntries((await allResults(agent, job.id)).map((r) => [r.email, r])) };
}

describe('a verification job whose worker has SMTP_PROXY set', () => {
  it('probes through the proxy with its credentials', async () => {
    running = await startVerificationWorld(world(98), { SMTP_PROXY: proxy.url });
    const { job, results } = await verify(running, ['jane@acme.test', 'nobody@acme.test']);
    expect(job.verificationStage).toBe('completed');
    expect(results['jane@acme.test']).toMatchObject({ result: 'Valid' });
    expect(results['nobody@acme.test']).toMatchObject({ result: 'Invalid' });
    const sessions = running.world.servers['mx.acme.test']?.stats.log ?? [];
    expect(sessions.length).toBeGreaterThan(0);
    expect(new Set(sessions.map((s) => s.remote.replace(/:\d+$/, '')))).toEqual(new Set([BIND]));
  });

  it('with a wrong password: Unknown with a reason naming the proxy; the password shows nowhere', async () => {
    const wrong = `socks5://${CREDENTIALS.user}:not-the-pw@127.0.0.1:${proxy.port}`;
    running = await startVerificationWorld(world(99), { SMTP_PROXY: wrong });
    const { agent, job, results } = await verify(running, ['jane@acme.test', 'nobody@acme.test']);
    expect(job.verificationStage).toBe('completed');
    for (const email of ['jane@acme.test', 'nobody@acme.test'])
      expect(results[email]).toMatchObject({ result: 'Unknown', reason: expect.stringContaining(`SOCKS5 proxy 127.0.0.1:${proxy.port} refused the credentials`) });
    expect(running.world.servers['mx.acme.test']?.stats.sessions).toBe(0);
    const shown = JSON.stringify([job, results, (await agent.get('/readyz')).body]);
    expect(shown).not.toContain('not-the-pw');
  });
});
