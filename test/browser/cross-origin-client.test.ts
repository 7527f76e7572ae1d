/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies are asserted field by field */
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.ts';
import { call, CLIENT_HTML, expectStatus, openClient, type Outcome, scriptVisibleCookies, submitUpload, watchEvents } from '../support/cross-origin-page.ts';
import { eventually } from '../support/eventually.ts';
import type { Harness } from '../support/harness.ts';
import { type MailWorld, mailWorldEnv, standardWorld, startMailWorld } from '../support/mail-world/index.ts';
import { type PageServer, servePage } from '../support/page-server.ts';
import { type ProviderServers, startProviderServers } from '../support/providers/index.ts';
import { companyRows, startScrapeHarness } from '../support/scrape.ts';
import { type ServedApp, serveApp } from '../support/served-app.ts';

// A real browser against the app over real HTTP: the page lives on a separate dashboard origin (listed in
// APP_ORIGINS), so every call is a credentialed cross-origin request that CORS, the session cookie and the
// CSRF origin check must all let through, and a page on another origin must not.

let world: MailWorld | undefined;
let servers: ProviderServers | undefined;
let dashboard: PageServer | undefined;
let foreign: PageServer | undefined;
let h: Harness | undefined;
let app: ServedApp | undefined;
let browser: Browser | undefined;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  world = await startMailWorld(standardWorld({ mailboxesPerDomain: 2 }));
  servers = await startProviderServers();
  dashboard = await servePage(CLIENT_HTML);
  foreign = await servePage(CLIENT_HTML);
  h = await startScrapeHarness(servers, { ...mailWorldEnv(world), APP_ORIGINS: dashboard.origin });
  app = await serveApp(h);
  browser = await launchChromium();
  // One context for the whole file: it is one user's browser, keeping the session cookie from step to step.
  context = await browser.newContext();
  // Generous: other test files share the machine's two cores.
  context.setDefaultTimeout(60_000);
  page = await context.newPage();
  await openClient(page, dashboard.origin, app.url);
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await h?.stop();
  await foreign?.close();
  await dashboard?.close();
  await servers?.close();
  await world?.stop();
});

const get = (path: string) => call(page, 'GET', path);
const post = (path: string, body?: unknown) => call(page, 'POST', path, body);
/** A job read through the page, as often as the page would: jobs run on the worker at their own pace on a shared machine. */
const SETTLED = { timeoutMs: 90_000, intervalMs: 250 };

// The steps build on each other (one session, as a user would go), so they run in order.
describe('a single-page client on another allowed origin, in Chromium', () => {
  const email = `browser-${randomUUID()}@example.test`;

  it('signs up: the session cookie comes back on the next call, and the page’s script cannot read it', async () => {
    const signup = expectStatus(await post('/api/auth/signup', { email, password: 'correct horse battery', organizationName: 'Browser Co' }), 201);
    expect(signup.user.email).toBe(email);

    const me = expectStatus(await get('/api/auth/me'), 200);
    expect(me).toMatchObject({ user: { email }, organization: { name: 'Browser Co' } });
    expect(await scriptVisibleCookies(page)).not.toContain('sid=');
    expect(await page.locator('#log').textContent()).toContain('GET /api/auth/me -> 200');
  });

  it('creates a list, adds leads and follows an SMTP verification job to completion over SSE', { timeout: 120_000 }, async () => {
    const list = expectStatus(await post('/api/lists', { name: 'Browser prospects' }), 201);
    const emails = { 'user0@good.test': 'Valid', 'nobody0@good.test': 'Invalid', 'user0@catchall.test': 'Catch-All', 'user0@nxdomain.test': 'Invalid' };
    const leads = Object.keys(emails).map((address, i) => ({ email: address, firstName: `Lead ${i}` }));
    expectStatus(await post(`/api/lists/${list.id}/leads`, { leads }), 201);
    expect(expectStatus(await get(`/api/lists/${list.id}`), 200)).toMatchObject({ name: 'Browser prospects', leadCount: 4 });

    const job = expectStatus(await post('/api/verification/jobs', { listId: list.id, verificationMethod: 'smtp_only' }), 201);
    expect(job).toMatchObject({ listId: list.id, totalEmails: 4, verificationStage: 'smtp_verifying' });
    // The page follows the job live over SSE from its own origin, as the dashboard does.
    const events = await watchEvents(page, `/api/verification/jobs/${job.id}/events`);
    expect(events[0]!.type).toBe('stage');
    expect(events.at(-1)).toEqual({ type: 'stage', stage: 'completed' });
    const done = await eventually(async () => expectStatus(await get(`/api/verification/jobs/${job.id}`), 200), (j) => j.verificationStage === 'completed', {
      what: `verification job ${job.id} completed, read through the page`,
      ...SETTLED,
    });
    expect(done).toMatchObject({ processedEmails: 4, smtpValidCount: 1, smtpInvalidCount: 2, smtpCatchAllCount: 1, smtpUnknownCount: 0 });

    const results = expectStatus(await get(`/api/verification/jobs/${job.id}/results?page=1&limit=100`), 200);
    expect(Object.fromEntries(results.data.map((r: any) => [r.email, r.result]))).toEqual(emails);
  });

  it('uploads a CSV picked in a file input as FormData, and the scrape job finds the profile the search has', { timeout: 120_000 }, async () => {
    const rows = companyRows(3, 2, servers!.serper, 'browser');
    await page.setInputFiles('#upload input[name=file]', { name: 'companies.csv', mimeType: 'text/csv', buffer: Buffer.from(rows.csv) });
    await page.fill('#upload input[name=name]', 'Browser upload');
    const created = expectStatus(await submitUpload(page), 201);
    expect(created.job).toMatchObject({ name: 'Browser upload', inputType: 'companies', totalItems: 3 });

    const done = await eventually(async () => expectStatus(await get(`/api/scrape/jobs/${created.job.id}`), 200), (j) => j.status === 'completed' || j.status === 'failed', {
      what: `scrape job ${created.job.id} settled, read through the page`,
      ...SETTLED,
    });
    expect(done).toMatchObject({ status: 'completed', completedItems: 3, foundItems: 1, failureReason: null });
    expect(done.items.map((item: any) => [item.rowNumber, item.status, item.networkUrl])).toEqual([
      [1, 'not_found', null],
      [2, 'found', 'https://www.linkedin.com/in/browser-person-2'],
      [3, 'not_found', null],
    ]);
  });

  it('refuses a page on a foreign origin: its fetches fail in the browser even with the user’s cookie', async () => {
    const stranger = await context.newPage();
    try {
      await openClient(stranger, foreign!.origin, app!.url);
      const read: Outcome = await call(stranger, 'GET', '/api/auth/me');
      expect(read).toEqual({ error: expect.stringContaining('Failed to fetch') });
      // JSON is preflighted: the browser asks first, gets no CORS approval and never sends the write.
      const write: Outcome = await call(stranger, 'POST', '/api/lists', { name: 'Planted by a stranger' });
      expect(write).toEqual({ error: expect.stringContaining('Failed to fetch') });
      // A multipart upload is a "simple" request: it does go out, with the cookie. The browser hides the
      // answer, and the CSRF origin check must have refused it (checked below: no second job).
      await stranger.setInputFiles('#upload input[name=file]', { name: 'planted.csv', mimeType: 'text/csv', buffer: Buffer.from('company,title\nPlanted Co,CEO\n') });
      expect(await submitUpload(stranger)).toEqual({ error: expect.stringContaining('Failed to fetch') });
    } finally {
      await stranger.close();
    }
    // The same calls from the dashboard work, and nothing the stranger sent was created.
    expectStatus(await get('/api/auth/me'), 200);
    const lists = expectStatus(await get('/api/lists'), 200);
    expect(lists.data.map((l: any) => l.name)).toEqual(['Browser prospects']);
    const jobs = expectStatus(await get('/api/scrape/jobs'), 200);
    expect(jobs.data.map((j: any) => j.name)).toEqual(['Browser upload']);
  });

  it('logs out: the cookie is gone and /api/auth/me answers 401', async () => {
    expectStatus(await post('/api/auth/logout'), 204);
    const me = expectStatus(await get('/api/auth/me'), 401);
    expect(me.error.code).toBe('unauthorized');
    expect((await context.cookies(app!.url)).map((c) => c.name)).not.toContain('sid');
  });
});
