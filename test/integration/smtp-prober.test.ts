import { eventually } from '../support/eventually.ts';
import { hostOf, testProber } from '../support/mail-world/prober.ts';
import { createSocket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProbeOutcome, SmtpProberOptions, SmtpProber } from '../../src/smtp/prober.ts';
import { DomainMismatchError, SmtpProberConfigError } from '../../src/smtp/prober.ts';
import type { MailWorld, StandardDomain } from '../support/mail-world/index.ts';
import {
  knownAddress,
  STANDARD_DOMAINS,
  STANDARD_EXPECTATIONS,
  STANDARD_LIMITS,
  standardAddressList,
  standardWorld,
  startMailWorld,
  unknownAddress,
} from '../support/mail-world/index.ts';

const TIMEOUT_MS = 500;
const GREYLIST_DELAY_MS = 200;
const ENVELOPE_VERBS = new Set(['EHLO', 'HELO', 'STARTTLS', 'MAIL', 'RCPT', 'RSET', 'QUIT']);

const proberFor = (world: MailWorld, overrides: Partial<SmtpProberOptions> = {}): SmtpProber =>
  testProber(world, { timeoutMs: TIMEOUT_MS, greylistDelayMs: GREYLIST_DELAY_MS, ...overrides });

const host = hostOf;

/** What each kind of domain's reason must say, for an existing and a non-existing mailbox. */
const REASONS: Record<StandardDomain, { known: RegExp; unknown: RegExp }> = {
  'good.test': { known: /^250 /, unknown: /^550 5\.1\.1 .*User unknown/ },
  'plain.test': { known: /^250 /, unknown: /^550 5\.1\.1 / },
  'catchall.test': { known: /^catch-all: a random address was accepted \(250 /, unknown: /^catch-all: / },
  'greylist.test': { known: /^250 /, unknown: /^550 5\.1\.1 / },
  // A blocklist in the reply is about our egress (CONTRACT §13), and this world has no other egress.
  'blocked.test': {
    known: /^egress_blocked: mx\.blocked\.test refused egress direct \(550 5\.7\.1 .*blocked using zen\.spamhaus\.org/,
    unknown: /^egress_blocked: /,
  },
  'silent.test': {
    known: /^timeout waiting for greeting from mx\.silent\.test:\d+$/,
    unknown: /^timeout waiting for greeting/,
  },
  'refused.test': {
    known: /^connection refused by mx\.refused\.test:\d+$/,
    unknown: /^connection refused by /,
  },
  'fallback.test': { known: /^250 /, unknown: /^550 5\.1\.1 / },
  'busy.test': { known: /^250 /, unknown: /^550 5\.1\.1 / },
  'arecord.test': { known: /^250 /, unknown: /^550 5\.1\.1 / },
  'nullmx.test': { known: /^null MX \(RFC 7505\)/, unknown: /^null MX/ },
  'nomail.test': { known: /^no MX or A record$/, unknown: /^no MX or A record$/ },
  'nxdomain.test': { known: /^no MX or A record$/, unknown: /^no MX or A record$/ },
  'limited.test': { known: /^250 /, unknown: /^550 5\.1\.1 / },
  'closing.test': { known: /^250 /, unknown: /^550 5\.1\.1 / },
  'servfail.test': { known: /^MX lookup for servfail\.test failed \(ESERVFAIL\)$/, unknown: /ESERVFAIL/ },
};

const PRECHECK_DOMAINS = new Set<StandardDomain>([
  'nullmx.test',
  'nomail.test',
  'nxdomain.test',
  'servfail.test',
]);

describe('SmtpProber in the standard mail world', () => {
  let world: MailWorld;
  let prober: SmtpProber;

  beforeAll(async () => {
    world = await startMailWorld(standardWorld({ mailboxesPerDomain: 40 }));
    prober = proberFor(world);
  });

  afterAll(async () => {
    await world?.stop();
  });

  it.each(STANDARD_DOMAINS)('gives %s its expected results and reasons', async (domain) => {
    const expected = STANDARD_EXPECTATIONS[domain];
    const emails = [knownAddress(domain, 0), unknownAddress(domain, 0), knownAddress(domain, 1)];
    const outcome = await prober.probeDomain(domain, emails);

    expect(outcome.domain).toBe(domain);
    expect(outcome.isCatchAll).toBe(expected.isCatchAll);
    expect(outcome.outcomes.map((o) => o.email)).toEqual(emails);
    expect(outcome.outcomes.map((o) => o.result)).toEqual([expected.known, expected.unknown, expected.known]);
    const [known, unknown] = outcome.outcomes;
    expect(known?.reason).toMatch(REASONS[domain].known);
    expect(unknown?.reason).toMatch(REASONS[domain].unknown);
    for (const o of outcome.outcomes) {
      expect(o.source).toBe(PRECHECK_DOMAINS.has(domain) ? 'precheck' : 'smtp');
      expect(o.mxHost).toBe(expected.mxHost);
      expect(o.flags).toEqual({ disposable: false, role: false, free: false });
    }
  });

  it('never contacts the host behind the A record of a null-MX domain', async () => {
    await prober.probeDomain('nullmx.test', [knownAddress('nullmx.test', 5)]);
    expect(host(world, 'nullmx.test').stats.sessions).toBe(0);
  });

  it('probes many addresses of one domain in its sessions, within the host limit, each address asked once', async () => {
    const mx = host(world, 'mx1.good.test');
    const before = { sessions: mx.stats.sessions, rcpts: mx.stats.rcpts.length, log: mx.stats.log.length };
    const emails = Array.from({ length: 12 }, (_, k) =>
      k % 2 ? unknownAddress('good.test', 10 + k) : knownAddress('good.test', 10 + k),
    );

    const outcome = await prober.probeDomain('good.test', emails);

    expect(outcome.outcomes.map((o) => o.result)).toEqual(
      emails.map((_, k) => (k % 2 ? 'Invalid' : 'Valid')),
    );
    // A second session opens only when the measured reply and opening times say it finishes sooner (the
    // SMTP_PROBE_PER_DOMAIN of this prober is 2), so on a loaded machine it may or may not.
    expect(mx.stats.sessions - before.sessions).toBeGreaterThanOrEqual(1);
    expect(mx.stats.sessions - before.sessions).toBeLessThanOrEqual(2);
    // 12 addresses plus the one random catch-all address.
    expect(mx.stats.rcpts.length - before.rcpts).toBe(13);
    // The session may outlive the last answer by its QUIT.
    await eventually(() => mx.stats.activeSessions, (n) => n === 0, { what: 'the session closed', timeoutMs: 15_000 });
    const sessions = mx.stats.log.slice(before.log).map((session) => ({
      tls: session.tls,
      commands: session.commands,
      verbs: session.commands.map((line) => line.split(' ', 1)[0]?.toUpperCase()),
    }));
    for (const session of sessions) {
      expect(session.tls).toBe(true);
      expect(session.verbs.slice(0, 3)).toEqual(['EHLO', 'STARTTLS', 'EHLO']);
      expect(session.verbs.at(-1)).toBe('QUIT');
    }
    // The random address opens the transaction of whichever session took it, which goes on with real addresses
    // once it is answered: no RSET and second MAIL FROM between them.
    const real = new Set(emails.map((email) => `RCPT TO:<${email}>`));
    const probing = sessions.filter((session) => session.commands.some((line) => line.startsWith('RCPT') && !real.has(line)));
    expect(probing).toHaveLength(1);
    const { commands, verbs } = probing[0]!;
    expect(verbs.slice(3, 5)).toEqual(['MAIL', 'RCPT']);
    expect(real.has(commands[4]!)).toBe(false);
    expect(real.has(commands[5]!)).toBe(true);
  });

  it('resumes the host’s last TLS session on its next connection', async () => {
    const mx = host(world, 'mx1.good.test');
    const before = mx.stats.log.length;
    const fresh = proberFor(world);
    await fresh.probeDomain('good.test', [knownAddress('good.test', 40)]);
    await fresh.probeDomain('good.test', [knownAddress('good.test', 41)]);
    const sessions = mx.stats.log.slice(before);
    expect(sessions.map((s) => [s.tls, s.tlsResumed])).toEqual([
      [true, false],
      [true, true],
    ]);
  });

  it('continues on a new session when the server limits recipients per session (452 4.5.3)', async () => {
    const mx = host(world, 'mx.limited.test');
    const before = mx.stats.sessions;
    const emails = Array.from({ length: 8 }, (_, k) =>
      k % 3 === 2 ? unknownAddress('limited.test', 20 + k) : knownAddress('limited.test', 20 + k),
    );

    const outcome = await prober.probeDomain('limited.test', emails);

    expect(outcome.outcomes.map((o) => o.result)).toEqual(
      emails.map((_, k) => (k % 3 === 2 ? 'Invalid' : 'Valid')),
    );
    // 9 recipients (with the catch-all probe), 3 answered per session. RCPTs pipelined after the
    // 452 reach the server too, but their replies are never used: they go to the next session.
    expect(mx.stats.sessions - before).toBe(Math.ceil(9 / STANDARD_LIMITS.rcptPerSession));
  });

  it('continues on a new connection after a 421 mid-session', async () => {
    const mx = host(world, 'mx.closing.test');
    const before = mx.stats.sessions;
    const emails = Array.from({ length: 6 }, (_, k) =>
      k % 2 ? unknownAddress('closing.test', 20 + k) : knownAddress('closing.test', 20 + k),
    );

    const outcome = await prober.probeDomain('closing.test', emails);

    expect(outcome.outcomes.map((o) => o.result)).toEqual(
      emails.map((_, k) => (k % 2 ? 'Invalid' : 'Valid')),
    );
    expect(mx.stats.sessions - before).toBeGreaterThan(1);
  });

  it('retries a greylisted address after the delay and finds it valid', async () => {
    const mx = host(world, 'mx.greylist.test');
    const email = knownAddress('greylist.test', 30);
    const started = Date.now();

    const outcome = await prober.probeDomain('greylist.test', [email]);

    expect(outcome.outcomes[0]?.result).toBe('Valid');
    expect(outcome.isCatchAll).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(GREYLIST_DELAY_MS);
    expect(mx.stats.rcpts.filter((rcpt) => rcpt === email)).toHaveLength(2);
  });

  it('lets a silent primary MX time out within the timeout and uses the next one', async () => {
    const silent = host(world, 'mx1.fallback.test');
    const before = silent.stats.sessions;
    const started = Date.now();

    const outcome = await prober.probeDomain('fallback.test', [knownAddress('fallback.test', 30)]);

    const elapsed = Date.now() - started;
    expect(outcome.outcomes[0]).toMatchObject({ result: 'Valid', mxHost: 'mx2.fallback.test' });
    expect(outcome.mxHost).toBe('mx2.fallback.test');
    expect(silent.stats.sessions - before).toBe(1);
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 800);
  });

  it('falls back to HELO when EHLO is refused, and talks plain text without STARTTLS', async () => {
    const mx = host(world, 'mx.plain.test');
    await prober.probeDomain('plain.test', [knownAddress('plain.test', 30)]);
    const session = mx.stats.log.at(-1);
    expect(session?.commands.slice(0, 2).map((line) => line.split(' ', 1)[0])).toEqual(['EHLO', 'HELO']);
    expect(session?.tls).toBe(false);
  });

  it('checks the whole 1,000-address list over every kind of domain', { timeout: 30_000 }, async () => {
    const list = standardAddressList(1_000, { mailboxesPerDomain: 40 });
    const byDomain = Map.groupBy(list, (entry) => entry.domain);
    const results = new Map<string, string>();
    await Promise.all(
      [...byDomain].map(async ([domain, entries]) => {
        const outcome = await prober.probeDomain(
          domain,
          entries.map((entry) => entry.email),
        );
        for (const o of outcome.outcomes) results.set(o.email, o.result);
      }),
    );
    const wrong = list.filter((entry) => results.get(entry.email) !== entry.expected);
    expect(wrong).toEqual([]);
  });

  it('never sends DATA and speaks only envelope commands', () => {
    expect(world.totals().dataCommands).toBe(0);
    for (const mx of Object.values(world.servers)) {
      for (const session of mx.stats.log) {
        for (const line of session.commands)
          expect(ENVELOPE_VERBS).toContain(line.split(' ', 1)[0]?.toUpperCase());
      }
    }
  });
});

describe('SmtpProber calls', () => {
  let world: MailWorld;
  let prober: SmtpProber;

  beforeAll(async () => {
    world = await startMailWorld(standardWorld({ mailboxesPerDomain: 5 }));
    prober = proberFor(world);
  });

  afterAll(async () => {
    await world?.stop();
  });

  it('judges a malformed address Invalid without any network', async () => {
    const queries = world.dnsQueries.length;
    const seen: ProbeOutcome[] = [];
    const outcome = await prober.probeDomain('good.test', ['not-an-address', 'a..b@good.test'], {
      onResult: (o) => seen.push(o),
    });
    expect(outcome.outcomes).toMatchObject([
      {
        email: 'not-an-address',
        result: 'Invalid',
        source: 'precheck',
        reason: 'invalid address syntax',
        mxHost: null,
      },
      { email: 'a..b@good.test', result: 'Invalid', source: 'precheck' },
    ]);
    expect(seen).toHaveLength(2);
    expect(world.dnsQueries.length).toBe(queries);
  });

  it('reports every outcome once through onResult and keeps the input order and spelling', async () => {
    const emails = [' User0@GOOD.test ', 'nobody1@good.test', 'user0@good.test', 'Info@good.test'];
    const seen: ProbeOutcome[] = [];
    const outcome = await prober.probeDomain('good.test', emails, { onResult: (o) => seen.push(o) });
    expect(outcome.outcomes.map((o) => [o.email, o.result])).toEqual([
      [' User0@GOOD.test ', 'Valid'],
      ['nobody1@good.test', 'Invalid'],
      ['user0@good.test', 'Valid'],
      ['Info@good.test', 'Invalid'],
    ]);
    expect(seen.map((o) => o.email).sort()).toEqual([...emails].sort());
    expect(outcome.outcomes[3]?.flags.role).toBe(true);
    expect(outcome.outcomes[3]?.reason).toMatch(/; flags: role$/);
  });

  it('asks no real address of a domain whose random address was accepted, though its transaction could go on', async () => {
    const mx = host(world, 'mx.catchall.test');
    const before = mx.stats.rcpts.length;
    const emails = Array.from({ length: 10 }, (_, k) => knownAddress('catchall.test', 50 + k));
    const outcome = await prober.probeDomain('catchall.test', emails);
    expect(outcome.outcomes.map((o) => o.result)).toEqual(Array(10).fill('Catch-All'));
    expect(mx.stats.rcpts.length - before).toBe(1); // the random address alone
  });

  it('asks the server once for addresses that differ only in case', async () => {
    const mx = host(world, 'mx1.good.test');
    const before = mx.stats.rcpts.length;
    await prober.probeDomain('good.test', ['user2@good.test', 'USER2@good.test']);
    expect(mx.stats.rcpts.length - before).toBe(2); // the address and the catch-all probe
  });

  it('refuses an address of another domain', async () => {
    await expect(prober.probeDomain('good.test', ['user0@other.test'])).rejects.toThrow(DomainMismatchError);
  });

  it('stops when the signal aborts', async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(new Error('job cancelled')), 50);
    await expect(
      prober.probeDomain('silent.test', [knownAddress('silent.test', 0)], { signal: controller.signal }),
    ).rejects.toThrow('job cancelled');
    // The connection being opened for nobody any more is abandoned, not left to time out.
    await eventually(() => prober.activeConnections, (n) => n === 0, { what: 'the abandoned connection closed' });
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS);
  });

  it('prechecks syntax and DNS only', async () => {
    const queriesBefore = world.dnsQueries.length;
    const sessionsBefore = world.totals().sessions;

    const good = await prober.precheckDomain('good.test', ['user0@good.test', 'bad@@good.test']);
    expect(good).toMatchObject({ domain: 'good.test', mxHost: 'mx1.good.test', passed: ['user0@good.test'] });
    expect(good.failed).toMatchObject([{ email: 'bad@@good.test', result: 'Invalid', source: 'precheck' }]);

    const nullMx = await prober.precheckDomain('nullmx.test', ['user0@nullmx.test']);
    expect(nullMx).toMatchObject({
      mxHost: null,
      passed: [],
      failed: [{ result: 'Invalid', reason: expect.stringMatching(/^null MX/) }],
    });

    const none = await prober.precheckDomain('nxdomain.test', ['user0@nxdomain.test']);
    expect(none.failed).toMatchObject([{ result: 'Invalid', reason: 'no MX or A record' }]);

    const implicit = await prober.precheckDomain('arecord.test', ['user0@arecord.test']);
    expect(implicit).toMatchObject({ mxHost: 'arecord.test', passed: ['user0@arecord.test'], failed: [] });

    // A DNS failure proves nothing: the address goes on to the paid check.
    const servfail = await prober.precheckDomain('servfail.test', ['user0@servfail.test']);
    expect(servfail).toMatchObject({ passed: ['user0@servfail.test'], failed: [] });

    expect(world.dnsQueries.length).toBeGreaterThan(queriesBefore);
    expect(world.totals().sessions).toBe(sessionsBefore);
  });

  it('calls a domain Unknown, not Invalid, when DNS does not answer', async () => {
    const mute = createSocket('udp4');
    await new Promise<void>((resolve) => mute.bind(0, '127.0.0.1', resolve));
    try {
      const deaf = proberFor(world, { dnsServers: [`127.0.0.1:${mute.address().port}`] });
      const outcome = await deaf.probeDomain('good.test', ['user0@good.test']);
      expect(outcome.outcomes[0]).toMatchObject({
        result: 'Unknown',
        source: 'precheck',
        reason: expect.stringMatching(/^MX lookup for good\.test failed \(ETIMEOUT\)$/),
      });
      const precheck = await deaf.precheckDomain('good.test', ['user0@good.test']);
      expect(precheck).toMatchObject({ failed: [], passed: ['user0@good.test'] });
    } finally {
      mute.close();
    }
  });

  it('refuses invalid options', () => {
    expect(() => proberFor(world, { dnsServers: ['dns.example:53'] })).toThrow(SmtpProberConfigError);
    expect(() => proberFor(world, { perHost: 0 })).toThrow(SmtpProberConfigError);
  });
});

describe('SmtpProber limits and failures', () => {
  const shared = {
    mailboxes: Array.from({ length: 6 }, (_, d) => `user@d${d}.test`),
    latencyMs: 40,
    starttls: false,
  };
  let world: MailWorld;

  beforeAll(async () => {
    world = await startMailWorld({
      domains: {
        // Six domains hosted on one MX host.
        ...Object.fromEntries(
          Array.from({ length: 6 }, (_, d) => [
            `d${d}.test`,
            { mx: [{ host: 'mx.shared.test', preference: 10, ip: '127.0.0.51', behaviour: shared }] },
          ]),
        ),
        // Four domains on four hosts.
        ...Object.fromEntries(
          Array.from({ length: 4 }, (_, h) => [
            `h${h}.test`,
            {
              mx: [
                {
                  host: `mx.h${h}.test`,
                  preference: 10,
                  ip: `127.0.0.${60 + h}`,
                  behaviour: { catchAll: true, latencyMs: 40, starttls: false },
                },
              ],
            },
          ]),
        ),
        'deferred.test': {
          mx: [
            { host: 'mx.deferred.test', preference: 10, ip: '127.0.0.70', behaviour: { deferAlways: true } },
          ],
        },
        // Replies slow enough that a QUIT written behind the last RCPTs reaches the host before their replies leave.
        'slow.test': {
          mx: [
            {
              host: 'mx.slow.test',
              preference: 10,
              ip: '127.0.0.74',
              behaviour: { mailboxes: ['a@slow.test', 'c@slow.test'], latencyMs: 150, starttls: false },
            },
          ],
        },
        'hangup.test': {
          mx: [
            {
              host: 'mx.hangup.test',
              preference: 10,
              ip: '127.0.0.71',
              behaviour: { catchAll: true, hangUpAfterCommands: 1 },
            },
          ],
        },
        'flaky.test': {
          mx: [
            {
              host: 'mx.flaky.test',
              preference: 10,
              ip: '127.0.0.72',
              behaviour: {
                mailboxes: ['a@flaky.test', 'b@flaky.test', 'c@flaky.test'],
                hangUpAfterCommands: 3,
              },
            },
          ],
        },
        'xn--bcher-kva.test': {
          mx: [
            {
              host: 'mx.xn--bcher-kva.test',
              preference: 10,
              ip: '127.0.0.73',
              behaviour: { mailboxes: ['jorg@xn--bcher-kva.test'] },
            },
          ],
        },
      },
    });
  });

  afterAll(async () => {
    await world?.stop();
  });

  it('shares one MX host’s sessions between its domains, never more than perHost at once', async () => {
    const prober = proberFor(world, { perHost: 2 });
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, (_, d) =>
        prober.probeDomain(`d${d}.test`, [`user@d${d}.test`, `other@d${d}.test`]),
      ),
    );
    expect(outcomes.flatMap((o) => o.outcomes.map((x) => x.result))).toEqual(
      Array.from({ length: 6 }, () => ['Valid', 'Invalid']).flat(),
    );
    const mx = host(world, 'mx.shared.test');
    expect(mx.stats.sessions).toBeLessThan(6);
    expect(mx.stats.maxConcurrentSessions).toBeLessThanOrEqual(2);
    // One transaction carried RCPTs of several domains.
    const domainsPerSession = mx.stats.log.map((s) => new Set(s.rcpts.map((r) => r.split('@')[1])).size);
    expect(Math.max(...domainsPerSession)).toBeGreaterThan(1);
  });

  it('never opens more than `concurrency` sessions in all', async () => {
    const prober = proberFor(world, { concurrency: 2, perHost: 2 });
    world.resetPeak();
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, (_, h) => prober.probeDomain(`h${h}.test`, [`x@h${h}.test`])),
    );
    expect(outcomes.map((o) => o.isCatchAll)).toEqual([true, true, true, true]);
    expect(world.maxConcurrentSessions()).toBe(2);
  });

  it('writes QUIT behind the last RCPTs of a session with nothing more to ask: the host closes a round trip sooner', async () => {
    const prober = proberFor(world, { perHost: 1 });
    const emails = ['a@slow.test', 'b@slow.test', 'c@slow.test'];
    const outcome = await prober.probeDomain('slow.test', emails);
    expect(outcome.outcomes.map((o) => o.result)).toEqual(['Valid', 'Invalid', 'Valid']);
    const mx = host(world, 'mx.slow.test');
    await eventually(() => mx.stats.activeSessions, (n) => n === 0, { what: 'the session closed', timeoutMs: 15_000 });
    expect(mx.stats.log).toHaveLength(1);
    const [session] = mx.stats.log;
    // The catch-all probe, then the three addresses in one window; QUIT went out when the second of them was answered.
    expect(session?.commands.map((line) => line.split(' ', 1)[0])).toEqual(['EHLO', 'MAIL', 'RCPT', 'RCPT', 'RCPT', 'RCPT', 'QUIT']);
    expect(session?.rcptsUnansweredAtQuit).toBe(1);
  });

  it('gives up on an address that stays deferred after the bounded attempts', async () => {
    const prober = proberFor(world, { greylistAttempts: 3 });
    const outcome = await prober.probeDomain('deferred.test', ['someone@deferred.test']);
    expect(outcome.outcomes[0]).toMatchObject({
      result: 'Unknown',
      reason: '451 4.3.0 Temporary local problem, please try again later (still deferred after 3 attempts)',
    });
    expect(outcome.isCatchAll).toBeNull();
    expect(
      host(world, 'mx.deferred.test').stats.rcpts.filter((rcpt) => rcpt === 'someone@deferred.test'),
    ).toHaveLength(3);
  });

  it('makes a bounded number of new connections when the server keeps hanging up', async () => {
    const prober = proberFor(world, { maxReconnects: 2 });
    const outcome = await prober.probeDomain('hangup.test', ['x@hangup.test', 'y@hangup.test']);
    expect(outcome.outcomes.map((o) => o.result)).toEqual(['Unknown', 'Unknown']);
    expect(outcome.outcomes[0]?.reason).toMatch(/^connection dropped by mx\.hangup\.test:\d+ after RCPT$/);
    expect(host(world, 'mx.hangup.test').stats.sessions).toBe(3);
  });

  it('resumes after a dropped connection and classifies every address', async () => {
    const prober = proberFor(world);
    const emails = ['a@flaky.test', 'b@flaky.test', 'nope@flaky.test', 'c@flaky.test'];
    const outcome = await prober.probeDomain('flaky.test', emails);
    expect(outcome.outcomes.map((o) => o.result)).toEqual(['Valid', 'Valid', 'Invalid', 'Valid']);
    expect(host(world, 'mx.flaky.test').stats.sessions).toBeGreaterThan(1);
  });

  it('probes an IDN domain by its ASCII name', async () => {
    const prober = proberFor(world);
    const outcome = await prober.probeDomain('xn--bcher-kva.test', [
      'jorg@bücher.test',
      'nobody@BÜCHER.test',
    ]);
    expect(outcome.outcomes.map((o) => o.result)).toEqual(['Valid', 'Invalid']);
    expect(host(world, 'mx.xn--bcher-kva.test').stats.rcpts).toContain('jorg@xn--bcher-kva.test');
  });
});
