/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies are asserted field by field */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../support/harness.ts';
import type { MailWorld } from '../support/mail-world/index.ts';
import {
  MAILBOX_HOST_DOMAINS,
  MAILBOX_HOST_EXPECTATIONS,
  type MailboxHostDomain,
  mailboxHostWorld,
  signalQueriesOf,
} from '../support/mail-world/mailbox-host-world.ts';
import { hostOf, testProber } from '../support/mail-world/prober.ts';
import { allResults, listWithEmails, startJob, startVerificationWorld, waitForJob } from '../support/verification.ts';
import { probeSlice } from '../../src/verification/engine.ts';

// CONTRACT §12 "Who hosts the mailboxes": an smtp_only job's results name the mailbox host and what showed it.
let world: MailWorld;
let h: Harness;
let stop: (() => Promise<void>) | undefined;
let results: any[];
let jobId: string;

beforeAll(async () => {
  ({ world, h, stop } = await startVerificationWorld(mailboxHostWorld()));
  const { agent } = await h.signup();
  const emails = MAILBOX_HOST_DOMAINS.flatMap((domain) => [`user0@${domain}`, `nobody@${domain}`]);
  const job = await startJob(agent, await listWithEmails(agent, emails), 'smtp_only');
  jobId = job.id;
  await waitForJob(agent, job.id, (j) => j.verificationStage === 'completed');
  results = await allResults(agent, job.id);
});
afterAll(() => stop?.());

const resultsOf = (domain: MailboxHostDomain) => results.filter((r) => r.email.endsWith(`@${domain}`));

describe('verification results: mailboxProvider', () => {
  it.each([
    ['Microsoft 365 behind a gateway, shown by SPF', 'm365-spf.test'],
    ['Microsoft 365 behind Proofpoint, shown by autodiscover', 'm365-autodiscover.test'],
    ['Microsoft 365 behind Mimecast, shown by its EOP host', 'm365-eop.test'],
    ['Google Workspace behind a gateway, shown by SPF', 'workspace.test'],
    ['a *.mx.microsoft MX host', 'newms.test'],
    ['a Google MX host', 'googlemx.test'],
    ['a plain host with nothing behind it', 'plain.test'],
  ] as const)('%s (%s)', (_, domain) => {
    const expected = MAILBOX_HOST_EXPECTATIONS[domain];
    const rows = resultsOf(domain);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatchObject({
        result: domain === 'plain.test' ? expect.stringMatching(/^(Valid|Invalid)$/) : 'Catch-All',
        mxProvider: expected.mxProvider,
        mailboxProvider: expected.mailboxProvider,
        mailboxProviderSignals: expected.signals,
      });
    }
  });

  it('looks behind a gateway once per domain, and never behind a Google or Microsoft MX host', () => {
    for (const domain of MAILBOX_HOST_DOMAINS) {
      const looksBehind = MAILBOX_HOST_EXPECTATIONS[domain].looksBehind;
      for (const query of signalQueriesOf(domain))
        expect(world.dnsQueries.filter((q) => q === query).length, query).toBe(looksBehind ? 1 : 0);
    }
  });
});

describe('a catch-all domain known from an earlier attempt', () => {
  it('writes its addresses without asking SMTP, with the mailbox host of the prober\'s lookup, not the MX provider', async () => {
    const domain = 'm365-eop.test';
    // As a retried slice finds it: the verdict and MX host stored, the addresses not yet.
    const [row] = await h.sql(
      `update verification_domain set smtp_done_at = null where job_id = ? and domain = ? returning seq, is_catch_all, mx_host`,
      [jobId, domain],
    );
    expect(row).toMatchObject({ is_catch_all: true, mx_host: 'm365-eop-test.mimecast.com' });
    await h.sql(
      `update verification_result set smtp_checked_at = null, mailbox_provider = null, mailbox_provider_signals = '[]' where job_id = ? and domain = ?`,
      [jobId, domain],
    );
    const rcpts = hostOf(world, 'm365-eop-test.mimecast.com').stats.rcpts.length;
    // Another worker's prober: nothing remembered yet.
    const prober = testProber(world);
    const run = { signal: new AbortController().signal, beat: () => undefined };
    await probeSlice({ orm: h.orm, prober }, { jobId, method: 'smtp_only', fromSeq: row.seq, toSeq: row.seq }, run);

    expect(hostOf(world, 'm365-eop-test.mimecast.com').stats.rcpts).toHaveLength(rcpts);
    const stored = await h.sql(
      `select result, mx_provider, mailbox_provider, mailbox_provider_signals from verification_result where job_id = ? and domain = ?`,
      [jobId, domain],
    );
    expect(stored).toHaveLength(2);
    for (const r of stored)
      expect(r).toEqual({ result: 'Catch-All', mx_provider: 'mimecast', mailbox_provider: 'microsoft', mailbox_provider_signals: ['eop'] });
  });
});
