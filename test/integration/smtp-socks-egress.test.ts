import { hostOf, testProber } from '../support/mail-world/prober.ts';
import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SmtpProberOptions, SmtpProber } from '../../src/smtp/prober.ts';
import { SmtpProberConfigError } from '../../src/smtp/prober.ts';
import type { MailHost, MailWorld } from '../support/mail-world/index.ts';
import { startMailWorld } from '../support/mail-world/index.ts';
import { type SocksServer, startSocksServer } from '../support/socks-server.ts';

const TIMEOUT_MS = 3_000;
const CREDENTIALS = { user: 'probe', password: 's3cret-pw' };

// Each proxy's connections come from its own loopback address, so a mail host's session log shows
// which egress every session took; the prober's own connections come from another address.
const OPEN_BIND = '127.0.0.77';
const AUTH_BIND = '127.0.0.78';
const GOOGLE_BIND = '127.0.0.79';

let world: MailWorld;
let open: SocksServer;
let auth: SocksServer;
let google: SocksServer;

beforeAll(async () => {
  world = await startMailWorld({
    domains: {
      'acme.test': {
        mx: [
          {
            host: 'mx.acme.test',
            preference: 10,
            ip: '127.0.97.1',
            behaviour: { mailboxes: ['jane@acme.test', 'john@acme.test'] },
          },
        ],
      },
      // A Google Workspace domain: its MX host's name makes the provider `google`.
      'gco.test': {
        mx: [
          {
            host: 'aspmx.l.google.com',
            preference: 10,
            ip: '127.0.97.2',
            behaviour: { mailboxes: ['ann@gco.test'] },
          },
        ],
      },
      'refused.test': {
        mx: [{ host: 'mx.refused.test', preference: 10, ip: '127.0.97.3', behaviour: { refused: true } }],
      },
      'canary.test': {
        mx: [
          {
            host: 'gmail-smtp-in.l.google.com',
            preference: 5,
            ip: '127.0.97.4',
            behaviour: { catchAll: true },
          },
        ],
      },
    },
  });
  [open, auth, google] = await Promise.all([
    startSocksServer({ bindAddress: OPEN_BIND }),
    startSocksServer({ bindAddress: AUTH_BIND, credentials: CREDENTIALS }),
    startSocksServer({ bindAddress: GOOGLE_BIND }),
  ]);
});

afterAll(async () => {
  await Promise.all([open?.stop(), auth?.stop(), google?.stop()]);
  await world?.stop();
});

const proberFor = (overrides: Partial<SmtpProberOptions>): SmtpProber =>
  testProber(world, { timeoutMs: TIMEOUT_MS, concurrency: 20, ...overrides });

const host = (name: string): MailHost => hostOf(world, name);

/** The client addresses of the sessions `name` saw since `from` sessions. */
function clientsSince(name: string, from: number): string[] {
  return [
    ...new Set(
      host(name)
        .stats.log.slice(from)
        .map((session) => session.remote.replace(/:\d+$/, '')),
    ),
  ];
}

/** Loopback URL of a proxy with other credentials than its own. */
function withCredentials(proxy: SocksServer, user: string, password: string): string {
  return `socks5://${user}:${password}@127.0.0.1:${proxy.port}`;
}

describe('SMTP probes through a SOCKS5 proxy (SMTP_PROXY)', () => {
  it('without credentials: the verdicts are right and every session comes from the proxy', async () => {
    const before = host('mx.acme.test').stats.log.length;
    const outcome = await proberFor({ proxy: open.url }).probeDomain('acme.test', [
      'jane@acme.test',
      'nobody@acme.test',
      'john@acme.test',
    ]);
    expect(outcome.outcomes.map((o) => [o.email, o.result])).toEqual([
      ['jane@acme.test', 'Valid'],
      ['nobody@acme.test', 'Invalid'],
      ['john@acme.test', 'Valid'],
    ]);
    expect(outcome.isCatchAll).toBe(false);
    expect(host('mx.acme.test').stats.log.length).toBeGreaterThan(before);
    expect(clientsSince('mx.acme.test', before)).toEqual([OPEN_BIND]);
  });

  it('the same probe without a proxy comes from the worker itself (what tells the two apart)', async () => {
    const before = host('mx.acme.test').stats.log.length;
    const outcome = await proberFor({}).probeDomain('acme.test', ['jane@acme.test']);
    expect(outcome.outcomes[0]?.result).toBe('Valid');
    const clients = clientsSince('mx.acme.test', before);
    expect(clients.length).toBeGreaterThan(0);
    expect(clients).not.toContain(OPEN_BIND);
  });

  it('with credentials: the proxy accepts them and the verdicts are right', async () => {
    const before = host('mx.acme.test').stats.log.length;
    const outcome = await proberFor({ proxy: auth.url }).probeDomain('acme.test', [
      'jane@acme.test',
      'nobody@acme.test',
    ]);
    expect(outcome.outcomes.map((o) => o.result)).toEqual(['Valid', 'Invalid']);
    expect(clientsSince('mx.acme.test', before)).toEqual([AUTH_BIND]);
  });

  it('a wrong password leaves every address Unknown at once, with a reason that names the proxy and not the password', async () => {
    const before = host('mx.acme.test').stats.sessions + host('aspmx.l.google.com').stats.sessions;
    const prober = proberFor({ proxy: withCredentials(auth, CREDENTIALS.user, 'wrong-pw') });
    const started = Date.now();
    const outcomes = await Promise.all([
      prober.probeDomain('acme.test', ['jane@acme.test', 'nobody@acme.test']),
      prober.probeDomain('gco.test', ['ann@gco.test']),
    ]);
    // Far below one timeout per domain: the proxy says no at once.
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS / 2);
    const all = outcomes.flatMap((o) => o.outcomes);
    expect(all).toHaveLength(3);
    for (const o of all) {
      expect(o).toMatchObject({ result: 'Unknown', source: 'smtp' });
      expect(o.reason).toMatch(
        new RegExp(`SOCKS5 proxy 127\\.0\\.0\\.1:${auth.port} refused the credentials`),
      );
      expect(o.reason).not.toContain('wrong-pw');
    }
    expect(outcomes.map((o) => o.isCatchAll)).toEqual([null, null]);
    expect(host('mx.acme.test').stats.sessions + host('aspmx.l.google.com').stats.sessions).toBe(before);
  });

  it('no credentials for a proxy that wants them: Unknown, and the reason says credentials are needed', async () => {
    const outcome = await proberFor({ proxy: `socks5://127.0.0.1:${auth.port}` }).probeDomain('acme.test', [
      'jane@acme.test',
    ]);
    expect(outcome.outcomes[0]).toMatchObject({ result: 'Unknown' });
    expect(outcome.outcomes[0]?.reason).toMatch(/SOCKS5 proxy 127\.0\.0\.1:\d+ requires credentials/);
  });

  it('a proxy that cannot reach the MX host reports the host refused, through the proxy', async () => {
    const outcome = await proberFor({ proxy: open.url }).probeDomain('refused.test', [
      'someone@refused.test',
    ]);
    expect(outcome.outcomes[0]).toMatchObject({ result: 'Unknown' });
    expect(outcome.outcomes[0]?.reason).toMatch(
      new RegExp(
        `^connection refused by mx\\.refused\\.test:${world.port} \\(through SOCKS5 proxy 127\\.0\\.0\\.1:${open.port}\\)`,
      ),
    );
  });

  it('a proxy that is down: Unknown at once, the reason names the proxy', async () => {
    const gone = await startSocksServer({ bindAddress: OPEN_BIND });
    await gone.stop();
    const started = Date.now();
    const outcome = await proberFor({ proxy: gone.url }).probeDomain('acme.test', ['jane@acme.test']);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS / 2);
    expect(outcome.outcomes[0]).toMatchObject({ result: 'Unknown' });
    expect(outcome.outcomes[0]?.reason).toMatch(
      new RegExp(`SOCKS5 proxy 127\\.0\\.0\\.1:${gone.port} unreachable \\(ECONNREFUSED\\)`),
    );
  });

  it('a proxy that accepts and never answers: Unknown after one timeout, and an abort ends the wait at once', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const prober = proberFor({ proxy: `socks5://127.0.0.1:${port}`, timeoutMs: 300, maxReconnects: 0 });
      const started = Date.now();
      const outcome = await prober.probeDomain('acme.test', ['jane@acme.test']);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(outcome.outcomes[0]).toMatchObject({ result: 'Unknown' });
      expect(outcome.outcomes[0]?.reason).toMatch(
        new RegExp(
          `^timeout connecting to mx\\.acme\\.test:\\d+ through SOCKS5 proxy 127\\.0\\.0\\.1:${port}`,
        ),
      );

      const slow = proberFor({ proxy: `socks5://127.0.0.1:${port}`, timeoutMs: 60_000 });
      const controller = new AbortController();
      const probing = slow.probeDomain('acme.test', ['john@acme.test'], { signal: controller.signal });
      setTimeout(() => controller.abort(new Error('job cancelled')), 100);
      await expect(probing).rejects.toThrow('job cancelled');
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('a provider proxy (SMTP_PROVIDER_LIMITS) carries only that provider’s hosts', async () => {
    const prober = proberFor({ proxy: open.url, providerLimits: { google: { proxy: google.url } } });
    const acmeBefore = host('mx.acme.test').stats.log.length;
    const googleBefore = host('aspmx.l.google.com').stats.log.length;
    const [acme, gco] = await Promise.all([
      prober.probeDomain('acme.test', ['jane@acme.test', 'nobody@acme.test']),
      prober.probeDomain('gco.test', ['ann@gco.test', 'bob@gco.test']),
    ]);
    expect(acme.outcomes.map((o) => o.result)).toEqual(['Valid', 'Invalid']);
    expect(gco.outcomes.map((o) => [o.result, o.mxProvider])).toEqual([
      ['Valid', 'google'],
      ['Invalid', 'google'],
    ]);
    expect(clientsSince('mx.acme.test', acmeBefore)).toEqual([OPEN_BIND]);
    expect(clientsSince('aspmx.l.google.com', googleBefore)).toEqual([GOOGLE_BIND]);
    expect(prober.egressesOf('aspmx.l.google.com').map((egress) => egress.name)).toEqual([google.url]);
    expect(prober.egressesOf('mx.acme.test').map((egress) => egress.name)).toEqual([open.url]);
    // Limits and pacing are kept per host and egress, and found by the host's name.
    expect(prober.peakSessions('aspmx.l.google.com')).toBeGreaterThan(0);
  });

  it('a provider proxy without SMTP_PROXY: the other hosts are reached directly', async () => {
    const prober = proberFor({ providerLimits: { google: { proxy: auth.url } } });
    const acmeBefore = host('mx.acme.test').stats.log.length;
    const googleBefore = host('aspmx.l.google.com').stats.log.length;
    await Promise.all([
      prober.probeDomain('acme.test', ['jane@acme.test']),
      prober.probeDomain('gco.test', ['ann@gco.test']),
    ]);
    expect(clientsSince('mx.acme.test', acmeBefore)).not.toContain(AUTH_BIND);
    expect(clientsSince('aspmx.l.google.com', googleBefore)).toEqual([AUTH_BIND]);
    expect(prober.egressesOf('mx.acme.test')).toEqual([{ name: 'direct', proxy: null }]);
  });

  it('refuses a proxy URL that is not socks5://[user:pass@]host:port, without repeating it', () => {
    for (const proxy of [
      'http://u:topsecret@127.0.0.1:1080',
      'socks5://u:topsecret@127.0.0.1',
      'socks5://u@127.0.0.1:1080',
    ]) {
      const attempt = () => proberFor({ proxy });
      expect(attempt).toThrow(SmtpProberConfigError);
      expect(attempt).toThrow(/proxy: /);
      expect(attempt).not.toThrow(/topsecret/);
    }
  });
});

describe('the outbound-SMTP canary check takes the canary provider’s egress', () => {
  it('greets the canary through the proxy: smtp ok, and the canary host saw the proxy', async () => {
    const before = host('gmail-smtp-in.l.google.com').stats.log.length;
    const prober = proberFor({
      canaryDomains: ['canary.test'],
      providerLimits: { google: { proxy: auth.url } },
    });
    const state = await prober.environment.current();
    expect(state).toMatchObject({ dns: 'ok', smtp: 'ok' });
    expect(clientsSince('gmail-smtp-in.l.google.com', before)).toEqual([AUTH_BIND]);
  });

  it('a proxy that refuses the credentials proves nothing about port 25: smtp stays unknown, not blocked', async () => {
    const before = host('gmail-smtp-in.l.google.com').stats.sessions;
    const prober = proberFor({
      canaryDomains: ['canary.test'],
      proxy: withCredentials(auth, 'probe', 'wrong-pw'),
    });
    const state = await prober.environment.current();
    expect(state).toMatchObject({ dns: 'ok', smtp: 'unknown' });
    expect(host('gmail-smtp-in.l.google.com').stats.sessions).toBe(before);
  });
});
