import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../support/agent.ts';
import { createKey } from '../support/auth-cases.ts';
import { eventually } from '../support/eventually.ts';
import { knownAddress, standardWorld, unknownAddress } from '../support/mail-world/index.ts';
import { listWithEmails, startVerificationWorld, type VerificationWorld } from '../support/verification.ts';

let vw: VerificationWorld;
let session: Agent;
let key: string;
const client = () => new Agent(vw.h.app);
const verify = async (email: string, timeoutMs?: number) => {
  const started = Date.now();
  const res = await client().post('/api/external/verify', { email, ...(timeoutMs ? { timeoutMs } : {}) }, { 'x-api-key': key });
  return { ...res, elapsedMs: Date.now() - started };
};
const rcptsAt = (host: string) => vw.world.servers[host]!.stats.rcpts.length;

beforeAll(async () => {
  // A greylisting host asks again only after 3 s: longer than any deadline below, so it cannot be final in time.
  vw = await startVerificationWorld(standardWorld({ mailboxesPerDomain: 5 }), { SMTP_GREYLIST_DELAY_MS: '3000' });
  ({ agent: session } = await vw.h.signup());
  ({ key } = await createKey(session, ['verification:write', 'verification:read', 'lists:write', 'leads:write']));
});
afterAll(() => vw.stop());

describe('POST /api/external/verify', () => {
  it('answers an existing mailbox Valid, with its MX host and domain facts', async () => {
    const res = await verify(knownAddress('good.test', 0));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      email: 'user0@good.test',
      result: 'Valid',
      reason: expect.stringMatching(/^250/),
      domain: 'good.test',
      mxHost: 'mx1.good.test',
      mxProvider: 'other',
      isCatchAll: false,
      // The same evidence as a job's result (CONTRACT §10): the RCPT reply that decided, and the attempts made.
      smtpCode: 250,
      enhancedCode: null,
      attempts: 1,
      checkedAt: expect.any(String),
      cached: false,
      retryAfterSeconds: null,
    });
    const [fact] = await vw.h.sql(`select mx_host, is_catch_all from verify_domain_fact where domain = 'good.test'`);
    expect(fact).toEqual({ mx_host: 'mx1.good.test', is_catch_all: false });
  });

  it('answers the same address again from the recent result without asking the mail host (cached)', async () => {
    const first = await verify(knownAddress('good.test', 1));
    const rcpts = rcptsAt('mx1.good.test');
    const second = await verify(knownAddress('good.test', 1).toUpperCase().replace('GOOD.TEST', 'Good.Test'));
    expect(second.body).toMatchObject({ email: 'user1@good.test', result: 'Valid', cached: true, checkedAt: first.body.checkedAt, smtpCode: 250, attempts: 1 });
    expect(rcptsAt('mx1.good.test')).toBe(rcpts);
  });

  it('answers a mailbox that does not exist Invalid', async () => {
    const res = await verify(unknownAddress('good.test', 0));
    expect(res.body).toMatchObject({ result: 'Invalid', reason: expect.stringMatching(/^550/), isCatchAll: false, retryAfterSeconds: null, smtpCode: 550, enhancedCode: '5.1.1', attempts: 1 });
  });

  it('answers a catch-all domain Catch-All, and its next address from the cached domain facts without SMTP', async () => {
    const first = await verify(knownAddress('catchall.test', 0));
    // Decided by an accepting RCPT: its 250 is the evidence.
    expect(first.body).toMatchObject({ result: 'Catch-All', isCatchAll: true, mxHost: 'mx.catchall.test', cached: false, smtpCode: 250, enhancedCode: null });
    expect(first.body.attempts).toBeGreaterThanOrEqual(1);
    const sessions = vw.world.servers['mx.catchall.test']!.stats.sessions;
    const next = await verify(unknownAddress('catchall.test', 3));
    // No attempt of its own: the verdict rests on the reply that proved the domain catch-all.
    expect(next.body).toMatchObject({ result: 'Catch-All', isCatchAll: true, mxHost: 'mx.catchall.test', cached: false, smtpCode: 250, enhancedCode: null, attempts: 0 });
    expect(vw.world.servers['mx.catchall.test']!.stats.sessions).toBe(sessions);
  });

  it('answers a greylisted address Unknown with retryAfterSeconds within timeoutMs + 1 s, and does not reuse that answer', async () => {
    const res = await verify(knownAddress('greylist.test', 0), 1000);
    expect(res.body).toMatchObject({ result: 'Unknown', retryAfterSeconds: 60, cached: false, domain: 'greylist.test' });
    expect(res.elapsedMs).toBeLessThan(2000);
    const again = await verify(knownAddress('greylist.test', 0), 1000);
    expect(again.body.cached).toBe(false);
  });

  it('answers a domain without mail Invalid from DNS, and a malformed address Invalid without any lookup', async () => {
    const noSmtp = { smtpCode: null, enhancedCode: null, attempts: 0 };
    expect((await verify('someone@nomail.test')).body).toMatchObject({ result: 'Invalid', reason: 'no MX or A record', mxHost: null, ...noSmtp });
    expect((await verify('not an address')).body).toMatchObject({ result: 'Invalid', reason: 'invalid address syntax', cached: false, ...noSmtp });
  });

  it("reuses a verification job's recent result for the same organization only", async () => {
    const email = knownAddress('plain.test', 2);
    const listId = await listWithEmails(session, [email]);
    const job = await session.post('/api/verification/jobs', { listId, verificationMethod: 'smtp_only' });
    expect(job.status).toBe(201);
    await eventually(async () => (await session.get(`/api/verification/jobs/${job.body.id}`)).body.verificationStage, (stage) => stage === 'completed', {
      what: `verification job ${job.body.id} completed`,
      timeoutMs: 15_000,
    });
    expect((await verify(email)).body).toMatchObject({ result: 'Valid', cached: true, mxHost: 'mx.plain.test', smtpCode: 250, enhancedCode: null, attempts: 1 });

    const { agent: other } = await vw.h.signup();
    const otherKey = (await createKey(other, ['verification:write'])).key;
    const res = await client().post('/api/external/verify', { email }, { 'x-api-key': otherKey });
    expect(res.body).toMatchObject({ result: 'Valid', cached: false });
  });

  it('refuses a timeoutMs outside 1000..30000 and unknown fields (400)', async () => {
    for (const body of [{ email: 'a@good.test', timeoutMs: 999 }, { email: 'a@good.test', timeoutMs: 30_001 }, { email: 'a@good.test', extra: 1 }, {}]) {
      const res = await client().post('/api/external/verify', body, { 'x-api-key': key });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
  });
});
