/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies are asserted field by field */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../support/harness.ts';
import { type MsLoginServer, startMsLogin } from '../support/directory/ms-login.ts';
import { mailboxHostWorld } from '../support/mail-world/mailbox-host-world.ts';
import { allResults, inStage, listWithEmails, startJob, startVerificationWorld, waitForJob } from '../support/verification.ts';

const catchAll = (host: string, ip: string) => ({ mx: [{ host, preference: 10, ip, behaviour: { catchAll: true } }] });

// Microsoft 365 tenants on every kind of MX name (CONTRACT §12): the classic EOP name, the newer *.mx.microsoft name,
// and behind gateways shown by SPF, autodiscover or the EOP host (mailboxHostWorld); plus tenants that lie, throttle or
// answer a code nobody knows.
const HONEST = ['oldms.test', 'newms.test', 'm365-spf.test', 'm365-autodiscover.test', 'm365-eop.test'];
const base = mailboxHostWorld();
const WORLD = {
  domains: {
    ...base.domains,
    'oldms.test': catchAll('oldms-test.mail.protection.outlook.com', '127.0.31.1'),
    'lying.test': catchAll('lying-test.mail.protection.outlook.com', '127.0.31.2'),
    'throttled.test': catchAll('throttled-test.mail.protection.outlook.com', '127.0.31.3'),
    'oddcode.test': catchAll('oddcode-test.mail.protection.outlook.com', '127.0.31.4'),
  },
  records: base.records,
};
const known = (domain: string) => `ada.byron@${domain}`;
const stranger = (domain: string) => `no.such.person@${domain}`;

let h: Harness;
let login: MsLoginServer;
let stop: (() => Promise<void>) | undefined;
beforeAll(async () => {
  const ms = await startMsLogin({
    ...Object.fromEntries(HONEST.map((d) => [d, { kind: 'honest', users: ['ada.byron'] } as const])),
    'lying.test': { kind: 'accepts_all' },
    'throttled.test': { kind: 'throttles' },
    'oddcode.test': { kind: 'code', ifExistsResult: 4 },
  });
  login = ms.server;
  const world = await startVerificationWorld(WORLD, ms.env);
  h = world.h;
  stop = async () => {
    await world.stop();
    await login.close();
  };
});
afterAll(() => stop?.());

describe('the Microsoft directory in a verification job (CONTRACT §12)', () => {
  it('makes what the directory knows Valid, never Invalid, and trusts no tenant that fails its canary', { timeout: 150_000 }, async () => {
    const { agent } = await h.signup();
    const emails = [
      ...HONEST.flatMap((d) => [known(d), stranger(d)]),
      ...['lying.test', 'throttled.test', 'oddcode.test'].flatMap((d) => [known(d), stranger(d)]),
    ];
    const listId = await listWithEmails(agent, emails);
    const created = await startJob(agent, listId, 'smtp_api_fallback');
    const job = await waitForJob(agent, created.id, inStage('awaiting_decision', 'completed'), 140_000);
    const byEmail = new Map((await allResults(agent, created.id)).map((r: any) => [r.email, r]));

    for (const domain of HONEST) {
      expect(byEmail.get(known(domain)), domain).toMatchObject({
        result: 'Valid',
        source: 'directory',
        directory: { ifExistsResult: 0 },
        mailboxProvider: 'microsoft',
        catchAllScore: null,
        catchAllReasons: [],
      });
      const absent = byEmail.get(stranger(domain));
      expect(absent, domain).toMatchObject({ result: 'Catch-All', source: 'smtp', directory: null });
      expect(absent.catchAllScore).toBeLessThanOrEqual(2);
      expect(absent.catchAllReasons).toContain('directory_absent');
    }
    // A tenant that says "exists" to a made-up address answers for anyone: nothing it says is used.
    for (const email of [known('lying.test'), stranger('lying.test')]) {
      expect(byEmail.get(email)).toMatchObject({ result: 'Catch-All', directory: null });
      expect(byEmail.get(email).catchAllReasons).toContain('provider_accepts_all');
    }
    // Throttling and unknown codes are no verdict: Catch-All as SMTP said, scored, never Invalid.
    for (const domain of ['throttled.test', 'oddcode.test']) {
      for (const email of [known(domain), stranger(domain)]) {
        expect(byEmail.get(email)).toMatchObject({ result: 'Catch-All', directory: null });
        expect(byEmail.get(email).catchAllReasons).not.toContain('directory_absent');
        expect(byEmail.get(email).catchAllScore).toEqual(expect.any(Number));
      }
    }
    expect([...byEmail.values()].filter((r) => r.result === 'Invalid')).toEqual([]);
    // Directory answers belong to the SMTP stage and its counts.
    expect(job.smtpValidCount).toBe(HONEST.length);
    expect(job.smtpInvalidCount).toBe(0);

    const asked = login.requests;
    expect(new Set(asked.map((r) => `${r.method} ${r.path}`))).toEqual(new Set(['POST /common/GetCredentialType']));
    const usernames = login.usernames().map((u) => u.toLowerCase());
    // Only the canary was asked at the lying tenant; the throttled one was asked again later (the canary each pass).
    expect(usernames.filter((u) => u.endsWith('@lying.test'))).toHaveLength(1);
    expect(usernames.filter((u) => u.endsWith('@lying.test')).some((u) => u === known('lying.test'))).toBe(false);
    expect(usernames.filter((u) => u.endsWith('@throttled.test')).length).toBeGreaterThanOrEqual(3);
    // Honest tenants: the canary once, then each address once.
    for (const domain of HONEST) expect(usernames.filter((u) => u.endsWith(`@${domain}`)), domain).toHaveLength(3);
  });
});
