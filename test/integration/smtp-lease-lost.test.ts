import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SharedBudget } from '../../src/smtp/shared-budget.ts';
import { eventually } from '../support/eventually.ts';
import type { MailWorld } from '../support/mail-world/index.ts';
import { startMailWorld } from '../support/mail-world/index.ts';
import { hostOf, testProber } from '../support/mail-world/prober.ts';

/**
 * CONTRACT §11: a session whose lease is gone (another process cleared it as expired, so its slot may be in use
 * elsewhere) ends; its addresses are answered by a later session that holds a lease of its own.
 */
const DOMAIN = 'lost.test';
const HOST = 'mx.lost.test';
const KNOWN = Array.from({ length: 12 }, (_, k) => `user${k}@${DOMAIN}`);

let world: MailWorld;
let pool: pg.Pool;

beforeAll(async () => {
  world = await startMailWorld({
    domains: {
      [DOMAIN]: {
        // One RCPT at a time, each 250 ms: the session is still asking when its lease disappears.
        mx: [{ host: HOST, preference: 10, ip: '127.0.0.143', behaviour: { mailboxes: KNOWN, starttls: false, latencyMs: 250, pipelining: false } }],
      },
    },
  });
  pool = new pg.Pool({ connectionString: inject('databaseUrl'), max: 4 });
  pool.on('error', () => undefined);
});

afterAll(async () => {
  await pool?.end();
  await world?.stop();
});

describe('a lost lease', () => {
  it('ends its session (closed without QUIT) and the addresses are answered by a new session', { timeout: 60_000 }, async () => {
    const budget = new SharedBudget(pool, { holder: 'lease-lost test', ttlMs: 900 });
    const prober = testProber(world, { budget, perHost: 1 });
    const emails = [...KNOWN, `nobody@${DOMAIN}`];
    const probing = prober.probeDomain(DOMAIN, emails);
    const host = hostOf(world, HOST);
    await eventually(
      async () => host.stats.rcpts.length,
      (n) => n >= 2,
      { what: 'the first session asking', timeoutMs: 20_000, intervalMs: 20 },
    );
    // What another process does to a lease it finds expired.
    await pool.query('delete from smtp_lease where host = $1', [HOST]);
    const outcome = await probing;

    expect(outcome.outcomes.map((o) => [o.email, o.result])).toEqual(emails.map((email) => [email, email.startsWith('user') ? 'Valid' : 'Invalid']));
    const [first, ...later] = host.stats.log;
    expect(first?.commands).not.toContain('QUIT');
    expect(later.length).toBeGreaterThan(0);
    expect(host.stats.maxConcurrentBySource['127.0.0.1']).toBe(1);
  });
});
