import { hostOf, testProber } from '../support/mail-world/prober.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SmtpProberOptions } from '../../src/smtp/prober.ts';
import { TRIAL_REJECTS } from '../../src/smtp/pacing.ts';
import type { SmtpProber } from '../../src/smtp/prober.ts';
import type { HostBehaviour, MailHost, MailWorld } from '../support/mail-world/index.ts';
import { startMailWorld } from '../support/mail-world/index.ts';

const mailboxes = (domain: string, n: number) => Array.from({ length: n }, (_, k) => `user${k}@${domain}`);
const known = (domain: string, n: number) => mailboxes(domain, n);
const unknown = (domain: string, n: number) => Array.from({ length: n }, (_, k) => `nobody${k}@${domain}`);

// One hub hosts a.test, b.test, c.test (catch-all there) and f.test (whose first MX is dead); it
// refuses to relay for r.test, which names it as MX all the same.
const hub: HostBehaviour = {
  mailboxes: ['a', 'b', 'c', 'f', 'r'].flatMap((d) => mailboxes(`${d}.test`, 10)),
  catchAllDomains: ['c.test'],
  relayDomains: ['a.test', 'b.test', 'c.test', 'f.test'],
  starttls: false,
  latencyMs: 5,
};
const mx = (host: string, ip: string, behaviour: HostBehaviour, preference = 10) => ({
  host,
  preference,
  ip,
  behaviour,
});

let world: MailWorld;

const proberFor = (overrides: Partial<SmtpProberOptions> = {}): SmtpProber => testProber(world, overrides);

const host = (name: string): MailHost => hostOf(world, name);

const verbsOf = (commands: string[]) => commands.map((line) => line.split(' ', 1)[0]?.toUpperCase());

beforeAll(async () => {
  const hubMx = mx('mx.hub.test', '127.0.0.101', hub);
  world = await startMailWorld({
    domains: {
      'a.test': { mx: [hubMx] },
      'b.test': { mx: [hubMx] },
      'c.test': { mx: [hubMx] },
      'r.test': { mx: [hubMx] },
      'f.test': { mx: [mx('mx.dead.test', '127.0.0.102', { refused: true }), { ...hubMx, preference: 20 }] },
      'nopipe.test': {
        mx: [
          mx('mx.nopipe.test', '127.0.0.103', {
            mailboxes: mailboxes('nopipe.test', 10),
            pipelining: false,
            maxRcptPerSession: 3,
            starttls: false,
          }),
        ],
      },
      'pipe.test': {
        mx: [
          mx('mx.pipe.test', '127.0.0.104', {
            mailboxes: mailboxes('pipe.test', 10),
            maxRcptPerSession: 3,
            starttls: false,
          }),
        ],
      },
      'close.test': {
        mx: [
          mx('mx.close.test', '127.0.0.105', {
            mailboxes: mailboxes('close.test', 10),
            closeAfterCommands: 5,
            starttls: false,
          }),
        ],
      },
      'postfix.test': {
        mx: [
          mx('mx.postfix.test', '127.0.0.106', {
            mailboxes: mailboxes('postfix.test', 10),
            tarpit: { afterErrors: 10, delayMs: 1_000, closeAfterErrors: 20 },
            starttls: false,
          }),
        ],
      },
      'tarpit.test': {
        mx: [
          mx('mx.tarpit.test', '127.0.0.107', {
            mailboxes: mailboxes('tarpit.test', 10),
            tarpit: { afterErrors: 3, delayMs: 200, closeAfterErrors: 8 },
            starttls: false,
          }),
        ],
      },
      'patient.test': {
        mx: [
          mx('mx.patient.test', '127.0.0.109', { mailboxes: mailboxes('patient.test', 10), starttls: false }),
        ],
      },
      // Patient too, but each reply takes 10 ms: a few dozen addresses outlast opening a second session.
      'unhurried.test': {
        mx: [
          mx('mx.unhurried.test', '127.0.0.112', { mailboxes: mailboxes('unhurried.test', 10), starttls: false, latencyMs: 10 }),
        ],
      },
      'slowpoke.test': {
        mx: [
          mx('mx.slowpoke.test', '127.0.0.110', {
            mailboxes: mailboxes('slowpoke.test', 10),
            tarpit: { afterErrors: 10, delayMs: 1_000, closeAfterErrors: 20 },
            starttls: false,
          }),
        ],
      },
      'bannered.test': {
        mx: [
          mx('mx.bannered.test', '127.0.0.111', {
            mailboxes: mailboxes('bannered.test', 10),
            banner: 'Postfix (Debian/GNU)',
            tarpit: { afterErrors: 10, delayMs: 1_000, closeAfterErrors: 20 },
            starttls: false,
          }),
        ],
      },
      'wide.test': {
        mx: [mx('mx.wide.test', '127.0.0.108', { catchAll: true, starttls: false, latencyMs: 20 })],
      },
      // Many mailboxes, 10 ms a reply: a large job's transaction here lasts most of a second.
      'busy.test': {
        mx: [mx('mx.busy.test', '127.0.0.113', { mailboxes: mailboxes('busy.test', 80), starttls: false, latencyMs: 10 })],
      },
    },
  });
});

afterAll(async () => {
  await world?.stop();
});

describe('domains sharing an MX host', () => {
  it('share its sessions, with catch-all, relay refusal and MX fallback decided per domain', async () => {
    const prober = proberFor();
    const ask = (domain: string) => [...known(domain, 3), ...unknown(domain, 3)];
    const before = host('mx.hub.test').stats.sessions;
    const [a, b, c, r, f] = await Promise.all(
      ['a.test', 'b.test', 'c.test', 'r.test', 'f.test'].map((d) => prober.probeDomain(d, ask(d))),
    );
    const results = (o: typeof a) => o?.outcomes.map((x) => x.result);
    const validThenInvalid = ['Valid', 'Valid', 'Valid', 'Invalid', 'Invalid', 'Invalid'];
    expect(results(a)).toEqual(validThenInvalid);
    expect(results(b)).toEqual(validThenInvalid);
    expect(results(f)).toEqual(validThenInvalid);
    expect(f?.outcomes[0]?.mxHost).toBe('mx.hub.test');
    expect([a?.isCatchAll, b?.isCatchAll, f?.isCatchAll]).toEqual([false, false, false]);
    // Only c.test accepts anything on the hub.
    expect(c?.isCatchAll).toBe(true);
    expect(results(c)).toEqual(Array(6).fill('Catch-All'));
    // The hub's relay refusal says nothing about r.test's mailboxes.
    expect(r?.isCatchAll).toBeNull();
    expect(results(r)).toEqual(Array(6).fill('Unknown'));
    expect(r?.outcomes[0]?.reason).toMatch(/^554 5\.7\.1 .*Relay access denied/);

    const sessions = host('mx.hub.test').stats.log.slice(before);
    // Fewer sessions than domains (the rejection budget, not the domains, decides how many), never
    // more than the host's limit at once.
    expect(sessions.length).toBeLessThan(5);
    expect(prober.peakSessions('mx.hub.test')).toBeLessThanOrEqual(2);
    // The RCPT addresses of each transaction (between one MAIL and the next), per session.
    const transactions = sessions.flatMap((s) => {
      const groups: string[][] = [];
      for (const line of s.commands) {
        const verb = line.split(' ', 1)[0]?.toUpperCase();
        if (verb === 'MAIL') groups.push([]);
        if (verb === 'RCPT') groups.at(-1)?.push(line.slice(line.indexOf('<') + 1, line.indexOf('>')));
      }
      return groups;
    });
    // RCPTs of several domains travel in one transaction.
    const domainsOf = (t: string[]) => new Set(t.map((address) => address.slice(address.indexOf('@') + 1)));
    expect(Math.max(...transactions.map((t) => domainsOf(t).size))).toBeGreaterThan(2);
    // Each domain's random catch-all address was asked, before any real address of its transaction.
    const localParts = transactions.map((t) => t.map((address) => address.slice(0, address.indexOf('@'))));
    const isProbe = (local: string) => /^[a-z]{24}$/.test(local);
    expect(localParts.flat().filter(isProbe)).toHaveLength(5);
    for (const transaction of localParts) {
      const firstReal = transaction.findIndex((local) => !isProbe(local));
      if (firstReal >= 0) expect(transaction.slice(firstReal).filter(isProbe)).toEqual([]);
    }
    // A transaction of probes goes on with real addresses once they are answered (no RSET and MAIL FROM between).
    expect(localParts.some((t) => isProbe(t[0]!) && t.some((local) => !isProbe(local)))).toBe(true);
  });
});

describe('PIPELINING', () => {
  it('sends RCPTs one at a time to a host that does not offer it', async () => {
    const prober = proberFor();
    const emails = [...known('nopipe.test', 4), ...unknown('nopipe.test', 4)];
    const outcome = await prober.probeDomain('nopipe.test', emails);
    expect(outcome.outcomes.map((o) => o.result)).toEqual([
      ...Array(4).fill('Valid'),
      ...Array(4).fill('Invalid'),
    ]);
    // Nothing was written after the 452 that ended each session: one command, one reply.
    for (const session of host('mx.nopipe.test').stats.log)
      expect(session.rcpts.length).toBeLessThanOrEqual(4);
  });

  it('writes RCPTs in windows to a host that offers it, and asks again what a 452 left unanswered', async () => {
    const prober = proberFor();
    const emails = [...known('pipe.test', 4), ...unknown('pipe.test', 4)];
    const outcome = await prober.probeDomain('pipe.test', emails);
    expect(outcome.outcomes.map((o) => o.result)).toEqual([
      ...Array(4).fill('Valid'),
      ...Array(4).fill('Invalid'),
    ]);
    const log = host('mx.pipe.test').stats.log;
    // A window went out beyond the server's 3 recipients before its 452 came back.
    expect(Math.max(...log.map((s) => s.rcpts.length))).toBeGreaterThan(4);
  });

  it('leaves the addresses after a 421 in the middle of a window to the next session, never guessed', async () => {
    const prober = proberFor();
    const emails = [...known('close.test', 6), ...unknown('close.test', 6)];
    const outcome = await prober.probeDomain('close.test', emails);
    expect(outcome.outcomes.map((o) => o.result)).toEqual([
      ...Array(6).fill('Valid'),
      ...Array(6).fill('Invalid'),
    ]);
    expect(outcome.outcomes.every((o) => /^(250|550) /.test(o.reason))).toBe(true);
    const log = host('mx.close.test').stats.log;
    expect(log.length).toBeGreaterThan(2);
    // The window ran past the 421: those RCPTs reached the server, their answers were asked again.
    const rcptsAfterClose = log.some((s) => {
      const verbs = verbsOf(s.commands);
      return verbs.filter((v) => v === 'MAIL' || v === 'RCPT').length > 5;
    });
    expect(rcptsAfterClose).toBe(true);
  });
});

describe('error tarpits', () => {
  it('spends at most 8 rejected RCPTs per session, staying below a Postfix soft error limit', async () => {
    const prober = proberFor();
    const outcome = await prober.probeDomain('postfix.test', unknown('postfix.test', 28));
    expect(outcome.outcomes.every((o) => o.result === 'Invalid')).toBe(true);
    const log = host('mx.postfix.test').stats.log;
    // 29 rejections (with the catch-all probe), 8 per session.
    expect(log.length).toBeGreaterThanOrEqual(Math.ceil(29 / 8));
    for (const session of log) expect(session.rcpts.length).toBeLessThanOrEqual(8);
  });

  it('ends a session whose replies slow down or that closes with 421, and still classifies every address', async () => {
    const prober = proberFor({ maxRejectsPerSession: 50 });
    const outcome = await prober.probeDomain('tarpit.test', unknown('tarpit.test', 20));
    expect(outcome.outcomes.map((o) => o.result)).toEqual(Array(20).fill('Invalid'));
    const log = host('mx.tarpit.test').stats.log;
    expect(log.length).toBeGreaterThan(1);
    // No session went on to the 421 the host keeps for the 8th error.
    for (const session of log) expect(session.rcpts.length).toBeLessThan(8 + 25);
  });
});

describe('learning whether a host punishes rejections', () => {
  const rejectedPer = (name: string) =>
    host(name).stats.log.map((session) => session.rcpts.filter((rcpt) => !rcpt.startsWith('user')).length);

  it('lifts the budget on a host that took a trial session’s rejections without slowing down', async () => {
    const prober = proberFor();
    const outcome = await prober.probeDomain('patient.test', unknown('patient.test', 40));
    expect(outcome.outcomes.every((o) => o.result === 'Invalid')).toBe(true);
    // 41 rejections (with the catch-all probe) would take six sessions under a budget of 8.
    expect(host('mx.patient.test').stats.sessions).toBeLessThanOrEqual(2);
    expect(Math.max(...rejectedPer('mx.patient.test'))).toBeGreaterThan(TRIAL_REJECTS);
  });

  it('lets the trial decide before a second session opens: one beside it could spend only the budget of 8', async () => {
    const prober = proberFor();
    // A first job teaches the channel how long a session takes to open and a reply to come: for the next one's 58
    // addresses a second session pays by time alone.
    await prober.probeDomain('unhurried.test', unknown('unhurried.test', 2));
    const before = host('mx.unhurried.test').stats.sessions;
    const outcome = await prober.probeDomain('unhurried.test', unknown('unhurried.test', 60).slice(2));
    expect(outcome.outcomes.every((o) => o.result === 'Invalid')).toBe(true);
    const sessions = host('mx.unhurried.test').stats.log.slice(before);
    // The trial took its 12 rejections and then every other address (and the catch-all probe): nothing was left
    // for another session.
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.rcpts).toHaveLength(59);
  });

  it('keeps the trial going when a session opened beside it ends on its budget of 8', async () => {
    // Transactions of 10: the queue outgrows one session's and a second opens at once, within the budget.
    const prober = proberFor({ rcptPerTransaction: 10 });
    const before = host('mx.unhurried.test').stats.sessions;
    const outcome = await prober.probeDomain('unhurried.test', unknown('unhurried.test', 60));
    expect(outcome.outcomes.every((o) => o.result === 'Invalid')).toBe(true);
    const rejected = rejectedPer('mx.unhurried.test').slice(before);
    // The first two opened together, one of them the trial: it learnt the host is patient and went on past its 12
    // (the other's end on its budget used to call the trial off, and the trial stopped at 12).
    expect(rejected.length).toBeGreaterThan(1);
    expect(Math.max(rejected[0]!, rejected[1]!)).toBeGreaterThan(TRIAL_REJECTS);
  });

  it('pays a Postfix-like tarpit at most one delayed reply, then keeps every session within the budget', async () => {
    const prober = proberFor();
    const outcome = await prober.probeDomain('slowpoke.test', unknown('slowpoke.test', 40));
    expect(outcome.outcomes.every((o) => o.result === 'Invalid')).toBe(true);
    const rejected = rejectedPer('mx.slowpoke.test');
    // The trial ended at the first slowed reply (the 10th error): no session came near the 20 that close.
    expect(rejected.filter((n) => n > 8)).toHaveLength(1);
    expect(Math.max(...rejected)).toBeLessThanOrEqual(TRIAL_REJECTS);
  });

  it('runs no trial on a host whose greeting says Postfix', async () => {
    const prober = proberFor();
    const outcome = await prober.probeDomain('bannered.test', unknown('bannered.test', 40));
    expect(outcome.outcomes.every((o) => o.result === 'Invalid')).toBe(true);
    expect(Math.max(...rejectedPer('mx.bannered.test'))).toBeLessThanOrEqual(8);
  });
});

describe('provider limits', () => {
  it('opens up to the provider’s connections per host, overridable', async () => {
    const emails = Array.from({ length: 60 }, (_, k) => `x${k}@wide.test`);
    const byDefault = proberFor({ rcptPerTransaction: 5 });
    await byDefault.probeDomain('wide.test', emails);
    expect(byDefault.peakSessions('mx.wide.test')).toBe(2);
    expect(byDefault.providerLimits('other').connections).toBe(2);

    const overridden = proberFor({ rcptPerTransaction: 5, providerLimits: { other: { connections: 4 } } });
    await overridden.probeDomain('wide.test', emails);
    expect(overridden.peakSessions('mx.wide.test')).toBe(4);
    expect(host('mx.wide.test').stats.maxConcurrentSessions).toBeLessThanOrEqual(4);
  });

  it('opens no second session for a domain whose addresses fit one transaction: the catch-all probe rides along', async () => {
    const emails = Array.from({ length: 5 }, (_, k) => `y${k}@wide.test`);
    const before = host('mx.wide.test').stats.sessions;
    const prober = proberFor({ rcptPerTransaction: 5 });
    const outcome = await prober.probeDomain('wide.test', emails);
    expect(outcome.outcomes).toHaveLength(5);
    expect(host('mx.wide.test').stats.sessions - before).toBe(1);
    // One more address than a transaction holds is work for a second session.
    const more = proberFor({ rcptPerTransaction: 5 });
    await more.probeDomain('wide.test', [...emails, 'y5@wide.test']);
    expect(more.peakSessions('mx.wide.test')).toBe(2);
  });
});

describe('sessions per owner', () => {
  it('open one for a small job at a host whose session is in a large job’s transaction, within the host’s limit', async () => {
    const prober = proberFor();
    const busy = host('mx.busy.test');
    let bigDone = false;
    const big = prober.probeDomain('busy.test', known('busy.test', 79), { owner: 'big' }).then((outcome) => {
      bigDone = true;
      return outcome;
    });
    // The large job's one session is under way: its transaction took all 79 addresses and the probe.
    await expect.poll(() => busy.stats.rcpts.length, { interval: 5 }).toBeGreaterThanOrEqual(5);
    const small = await prober.probeDomain('busy.test', ['user79@busy.test'], { owner: 'small' });
    expect(small.outcomes[0]?.result).toBe('Valid');
    expect(bigDone).toBe(false);
    expect((await big).outcomes.every((o) => o.result === 'Valid')).toBe(true);
    // Its own session: asked while the large job's transaction still ran, not after it.
    expect(prober.peakSessions('mx.busy.test')).toBe(2);
    expect(busy.stats.rcpts.indexOf('user79@busy.test')).toBeLessThan(busy.stats.rcpts.indexOf('user78@busy.test'));
  });
});

describe('connection slots', () => {
  it('are shared round-robin between owners: a small job is served while a big one waits', async () => {
    const prober = proberFor({ concurrency: 1, rcptPerTransaction: 5 });
    let bigDone = false;
    const big = Promise.all(
      ['a.test', 'b.test', 'f.test'].map((d) =>
        prober.probeDomain(d, [...known(d, 10), ...unknown(d, 10)], { owner: 'big' }),
      ),
    ).then(() => {
      bigDone = true;
    });
    const small = await prober.probeDomain('nopipe.test', known('nopipe.test', 1), { owner: 'small' });
    expect(small.outcomes[0]?.result).toBe('Valid');
    expect(bigDone).toBe(false);
    await big;
  });

  it('serve a small job’s address on a host it shares with a big job before the big job’s queue', async () => {
    const prober = proberFor({ concurrency: 1, rcptPerTransaction: 5 });
    let bigDone = false;
    const big = Promise.all(
      ['a.test', 'b.test'].map((d) =>
        prober.probeDomain(d, [...known(d, 10), ...unknown(d, 10)], { owner: 'big' }),
      ),
    ).then(() => {
      bigDone = true;
    });
    const small = await prober.probeDomain('b.test', known('b.test', 1), { owner: 'small' });
    expect(small.outcomes[0]?.result).toBe('Valid');
    expect(bigDone).toBe(false);
    await big;
  });
});
