/* eslint-disable @typescript-eslint/no-explicit-any -- answers are asserted field by field */
import { randomUUID } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { SANDBOX_MAILBOX_HOST_DOMAINS, type Sandbox, sandboxPieces, startSandbox } from '../../src/sandbox/sandbox.ts';
import { eventually } from '../support/eventually.ts';
import { type ServiceProcess, startServiceProcess } from '../support/worker-process.ts';

// What `npm run dev` gives a newcomer with no keys: the whole service (ROLE=all) wired to the sandbox, and the
// README's walkthrough — verification with a paid fill, a scrape with sync, a bulk enrichment — end to end.
let sandbox: Sandbox;
let service: ServiceProcess;
const ORIGIN = 'http://app.test';
let cookie = '';

beforeAll(async () => {
  sandbox = await startSandbox({ NODE_ENV: 'development' });
  service = await startServiceProcess(
    {
      ...sandbox.env,
      DATABASE_URL: inject('databaseUrl'),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: `sandbox-${randomUUID()}`,
      APP_ORIGINS: ORIGIN,
      // The in-session greylist retry, shortened from 5 s for the test.
      SMTP_GREYLIST_DELAY_MS: '300',
    },
    'all',
  );
});
afterAll(async () => {
  await service?.kill();
  await sandbox?.stop();
});

/**
 * The sandbox runs with the production rate limit (600 requests a minute, bursts of 120): polls every 250 ms stay
 * under its refill however long a job takes on a loaded machine (every 50 ms ran a 10 s job out of tokens).
 */
const SANDBOX_POLL_MS = 250;

async function api(method: string, route: string, body?: unknown): Promise<any> {
  const isForm = body instanceof FormData;
  const res = await fetch(`${service.url}${route}`, {
    method,
    headers: { cookie, origin: ORIGIN, ...(body && !isForm ? { 'content-type': 'application/json' } : {}) },
    body: isForm ? body : body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${method} ${route} → ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** A session for the cases that run alone (`-t`), when the walkthrough's signup has not made one. */
async function signedIn(): Promise<void> {
  if (cookie) return;
  const signup = await fetch(`${service.url}/api/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `sandbox-${randomUUID()}@example.test`, password: 'a long password', organizationName: 'Sandbox' }),
  });
  cookie = signup.headers.getSetCookie()[0]!.split(';')[0]!;
}

describe('the development sandbox', () => {
  it('stands in for every piece whose key or setting is missing, and for none in production', () => {
    expect(sandbox.pieces).toEqual(['search', 'verification', 'enrichment', 'mail', 'directory', 'credits']);
    expect(sandboxPieces({ NODE_ENV: 'development', MS_DIRECTORY_CHECK: 'off' })).not.toContain('directory');
    expect(sandboxPieces({ NODE_ENV: 'development', SERPER_API_KEY: 'k', PDL_API_KEY: 'k', DNS_SERVERS: '1.1.1.1' })).toEqual([
      'verification',
      'credits',
    ]);
    expect(sandboxPieces({ NODE_ENV: 'production' })).toEqual([]);
  });

  it("turns the Microsoft directory check on against its stand-in, whose tenants the mail world's domains are", async () => {
    expect(sandbox.env).toMatchObject({ MS_DIRECTORY_CHECK: 'on', MS_LOGIN_BASE_URL: expect.stringMatching(/^http:\/\/127\.0\.0\.1:/) });
    const ask = async (username: string) => {
      const res = await fetch(`${sandbox.env.MS_LOGIN_BASE_URL}/common/GetCredentialType`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ Username: username }),
      });
      const body = (await res.json()) as { IfExistsResult: number; ThrottleStatus: number };
      return [body.IfExistsResult, body.ThrottleStatus];
    };
    expect(await ask('jane.doe@contoso.sandbox.test')).toEqual([0, 0]);
    expect(await ask('x1f2e3@contoso.sandbox.test')).toEqual([1, 0]);
    expect(await ask('x1f2e3@fabrikam.sandbox.test')).toEqual([0, 0]);
    expect(await ask('jane.doe@tailspin.sandbox.test')).toEqual([0, 1]);
    // Their MX is a Microsoft host name, served by the sandbox's own mail hosts.
    const resolver = new Resolver();
    resolver.setServers(sandbox.env.DNS_SERVERS!.split(','));
    for (const name of ['contoso', 'fabrikam', 'tailspin']) {
      const [mx] = await resolver.resolveMx(`${name}.sandbox.test`);
      expect(mx!.exchange).toBe(`${name}-sandbox-test.mail.protection.outlook.com`);
      expect(await resolver.resolve4(mx!.exchange)).toEqual([expect.stringMatching(/^127\.77\./)]);
    }
  });

  it('runs a verification, a scrape with sync and an enrichment end to end without any key', async () => {
    const signup = await fetch(`${service.url}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `new-${randomUUID()}@example.test`, password: 'a long password', organizationName: 'Newcomer' }),
    });
    cookie = signup.headers.getSetCookie()[0]!.split(';')[0]!;
    expect(((await signup.json()) as any).organization.creditBalance).toBe(1000);
    expect(await (await fetch(`${service.url}/readyz`)).json()).toMatchObject({ status: 'ok', sandbox: sandbox.pieces });

    // Verification: every documented domain, and one the sandbox knows nothing about.
    const list = await api('POST', '/api/lists', { name: 'Sandbox leads' });
    const expected: Record<string, [string, string]> = {
      'jane.doe@acme.sandbox.test': ['Valid', 'Valid'],
      'nobody@acme.sandbox.test': ['Invalid', 'Invalid'],
      'grace.hopper@catchall.sandbox.test': ['Catch-All', 'Valid'],
      'alan.turing@greylist.sandbox.test': ['Valid', 'Valid'],
      'x@blocked.sandbox.test': ['Unknown', 'Invalid'],
      'x@down.sandbox.test': ['Unknown', 'Invalid'],
      'a@nomail.sandbox.test': ['Invalid', 'Invalid'],
      'someone@gmail.com': ['Unknown', 'Unknown'],
    };
    await api('POST', `/api/lists/${list.id}/leads`, { leads: Object.keys(expected).map((email) => ({ email })) });
    const job = await api('POST', '/api/verification/jobs', { listId: list.id, verificationMethod: 'smtp_api_fallback' });
    const awaiting = await eventually(() => api('GET', `/api/verification/jobs/${job.id}`), (j) => j.verificationStage !== 'smtp_verifying', {
      intervalMs: SANDBOX_POLL_MS,
      what: `verification job ${job.id} past SMTP`,
    });
    expect(awaiting.verificationStage).toBe('awaiting_decision');
    const smtp = await api('GET', `/api/verification/jobs/${job.id}/results?limit=100`);
    expect(Object.fromEntries(smtp.data.map((r: any) => [r.email, r.result]))).toEqual(
      Object.fromEntries(Object.entries(expected).map(([email, [result]]) => [email, result])),
    );
    await api('POST', `/api/verification/jobs/${job.id}/decision`, { decision: 'fill_all_gaps' });
    const completed = await eventually(() => api('GET', `/api/verification/jobs/${job.id}`), (j) => j.verificationStage === 'completed', {
      intervalMs: SANDBOX_POLL_MS,
      what: `verification job ${job.id} completed`,
    });
    expect(completed.verificationStage).toBe('completed');
    const final = await api('GET', `/api/verification/jobs/${job.id}/results?limit=100`);
    expect(Object.fromEntries(final.data.map((r: any) => [r.email, r.result]))).toEqual(
      Object.fromEntries(Object.entries(expected).map(([email, [, result]]) => [email, result])),
    );

    // Scrape the README's sample file, then sync what it found into a list.
    const form = new FormData();
    form.append('file', new Blob([readFileSync(path.join(import.meta.dirname, '../../examples/companies.csv'))]), 'companies.csv');
    form.append('name', 'Targets');
    const scrape = (await api('POST', '/api/scrape/jobs', form)).job;
    const scraped = await eventually(() => api('GET', `/api/scrape/jobs/${scrape.id}`), (j) => j.status === 'completed' || j.status === 'failed', {
      intervalMs: SANDBOX_POLL_MS,
      what: `scrape job ${scrape.id} settled`,
    });
    expect(scraped).toMatchObject({ status: 'completed', foundItems: 2 });
    const synced = await api('POST', `/api/scrape/jobs/${scrape.id}/sync`);
    expect(synced.leadsCount).toBe(2);

    // Enrich the synced list: work email, personal email and phone, paid in credits.
    const bulk = await api('POST', '/api/enrichment/bulk', { listId: synced.listId });
    const enriched = await eventually(() => api('GET', `/api/enrichment/bulk/${bulk.jobId}`), (j) => j.status === 'completed' || j.status === 'failed', {
      intervalMs: SANDBOX_POLL_MS,
      what: `bulk enrichment job ${bulk.jobId} settled`,
    });
    expect(enriched).toMatchObject({ status: 'completed', successCount: 2 });
    expect(enriched.creditsUsed).toBeGreaterThan(0);
    const leads = await api('GET', `/api/lists/${synced.listId}/leads?limit=10`);
    for (const lead of leads.data) {
      expect(lead.workEmail).toMatch(/@acme\.sandbox\.test$/);
      expect(lead.personalEmail).toMatch(/@mail\.sandbox\.test$/);
      expect(lead.phone).toMatch(/^\+1415555010\d$/);
    }
    const credits = await api('GET', '/api/credits');
    expect(credits.balance).toBe(1000 - enriched.creditsUsed);
  });

  it('shows who hosts the mailboxes of its catch-all domains behind gateways and on newer MX names', async () => {
    await signedIn();
    const expected: Record<string, [string, string, string[]]> = {
      'jane.doe@m365-proofpoint.sandbox.test': ['proofpoint', 'microsoft', ['spf', 'autodiscover']],
      'jane.doe@m365-mimecast.sandbox.test': ['mimecast', 'microsoft', ['eop']],
      'jane.doe@m365-new.sandbox.test': ['microsoft', 'microsoft', ['mx']],
      'jane.doe@workspace.sandbox.test': ['other', 'google', ['spf']],
      'grace.hopper@catchall.sandbox.test': ['other', 'other', ['mx']],
    };
    expect(Object.keys(SANDBOX_MAILBOX_HOST_DOMAINS).map((domain) => `jane.doe@${domain}`)).toEqual(Object.keys(expected).slice(0, 4));
    const list = await api('POST', '/api/lists', { name: 'Mailbox hosts' });
    await api('POST', `/api/lists/${list.id}/leads`, { leads: Object.keys(expected).map((email) => ({ email })) });
    const job = await api('POST', '/api/verification/jobs', { listId: list.id, verificationMethod: 'smtp_only' });
    await eventually(() => api('GET', `/api/verification/jobs/${job.id}`), (j) => j.verificationStage === 'completed', {
      intervalMs: SANDBOX_POLL_MS,
      what: `verification job ${job.id} completed`,
    });
    const results = await api('GET', `/api/verification/jobs/${job.id}/results?limit=100`);
    expect(
      Object.fromEntries(results.data.map((r: any) => [r.email, [r.result, r.mxProvider, r.mailboxProvider, r.mailboxProviderSignals]])),
    ).toEqual(
      Object.fromEntries(
        // The Microsoft 365 tenants' directories know jane.doe: the free stage says Valid where SMTP could not.
        Object.entries(expected).map(([email, [mx, mailbox, signals]]) => [email, [mailbox === 'microsoft' ? 'Valid' : 'Catch-All', mx, mailbox, signals]]),
      ),
    );
  });
});

describe("the sandbox's mixed B2B list (examples/catch-all-mix.csv)", () => {
  it('resolves what the Microsoft directories know for free and scores every other Catch-All before the fill is priced', { timeout: 150_000 }, async () => {
    await signedIn();
    const list = await api('POST', '/api/lists', { name: 'Mixed B2B' });
    const form = new FormData();
    form.append('file', new Blob([readFileSync(path.join(import.meta.dirname, '../../examples/catch-all-mix.csv'))]), 'catch-all-mix.csv');
    expect((await api('POST', `/api/lists/${list.id}/leads/import`, form)).created).toBe(23);
    const job = await api('POST', '/api/verification/jobs', { listId: list.id, verificationMethod: 'smtp_api_fallback' });
    const waiting = await eventually(() => api('GET', `/api/verification/jobs/${job.id}`), (j) => j.verificationStage === 'awaiting_decision', {
      what: `verification job ${job.id} awaiting the decision`,
      timeoutMs: 140_000,
      // The throttling tenant's later directory passes wait on durable timers (10 s, 30 s): poll gently.
      intervalMs: 1_000,
    });
    const results = (await api('GET', `/api/verification/jobs/${job.id}/results?limit=100`)).data as any[];
    const onCatchAllDomains = results.filter((r) => !r.domain.startsWith('acme.'));
    const byDirectory = results.filter((r) => r.source === 'directory').map((r) => r.email).sort();
    expect(byDirectory).toEqual(
      [
        'ada.byron@contoso.sandbox.test',
        'ada.byron@m365-mimecast.sandbox.test',
        'jane.doe@contoso.sandbox.test',
        'jane.doe@m365-proofpoint.sandbox.test',
        'john.roe@contoso.sandbox.test',
        'john.roe@m365-new.sandbox.test',
      ].sort(),
    );
    const catchAll = results.filter((r) => r.result === 'Catch-All');
    expect(catchAll).toHaveLength(onCatchAllDomains.length - byDirectory.length);
    expect(catchAll.every((r) => Number.isInteger(r.catchAllScore) && r.catchAllReasons.length > 0)).toBe(true);
    expect(onCatchAllDomains.filter((r) => r.result === 'Invalid')).toEqual([]);
    expect(waiting.smtpCatchAllCount).toBe(catchAll.length);

    const estimate = await api('GET', `/api/verification/jobs/${job.id}/estimate`);
    const doubtful = estimate.catchAllByScore.filter((b: any) => b.score <= 4).reduce((n: number, b: any) => n + b.count, 0);
    // The figures of the closing note: what the free stage resolved or scored, and what the fill costs.
    console.log(
      `mixed list: ${onCatchAllDomains.length} addresses on catch-all domains; ${byDirectory.length} Valid by the directory; ` +
        `${catchAll.length} Catch-All scored (${doubtful} at 0–4); fill before ${onCatchAllDomains.length * 0.0005}, ` +
        `all remaining ${estimate.fillCatchAllCost}, scored 0–4 only ${doubtful * 0.0005}`,
    );
    expect(estimate.fillCatchAllCost).toBe((catchAll.length * 500) / 1_000_000);
  });
});
