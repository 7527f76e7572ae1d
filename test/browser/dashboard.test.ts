import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDashboardBuilt } from '../../scripts/build-dashboard.ts';
import { applyCredits } from '../../src/db/repos/credits.ts';
import { createSearchProvider } from '../../src/providers/search/index.ts';
import { launchChromium } from '../support/browser.ts';
import { captureScreen, watchConsole } from '../support/dashboard-ui.ts';
import { type EnrichmentWorld, MAIL, startEnrichmentWorld, withFastProviders } from '../support/enrichment/world.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { FAST_TUNING } from '../support/providers/tuning.ts';
import { companyRows } from '../support/scrape.ts';
import { type ServedApp, serveApp } from '../support/served-app.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';

// The dashboard as a user meets it: the built bundle served by the app at `/`, driven through its screens in
// Chromium against the sandbox stand-ins (mail world, provider servers) and a real worker. One browser, one
// user's context for the walk (the steps build on each other, as a session does), a fresh context where a test
// needs a stranger or a cut-off network.

let world: EnrichmentWorld | undefined;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>> | undefined;
let h: Harness | undefined;
let app: ServedApp | undefined;
let browser: Browser | undefined;
let context: BrowserContext;
let page: Page;
let consoleProblems: string[];

beforeAll(async () => {
  await ensureDashboardBuilt();
  world = await startEnrichmentWorld({ ipBase: 95 });
  receiver = await startWebhookReceiver();
  h = await startHarness({
    worker: true,
    env: { ...world.env, SANDBOX: 'zerobounce,serper,pdl', WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', SMTP_GREYLIST_SCHEDULE: '' },
    deps: (base) => withFastProviders({ ...base, search: createSearchProvider(base.config, FAST_TUNING) }),
  });
  app = await serveApp(h);
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  // Generous: other test files share the machine's two cores.
  context.setDefaultTimeout(60_000);
  page = await context.newPage();
  consoleProblems = watchConsole(page);
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await h?.stop();
  await receiver?.close();
  await world?.stop();
});

const alert = (p: Page = page) => p.getByRole('alert').first();
const go = async (hash: string) => {
  await page.goto(`${app!.url}/${hash}`);
};
/** A write of the test's own (setup the screens do not offer), with the session cookie and the app's Origin. */
const apiPost = async (path: string, data: unknown) => {
  const res = await context.request.post(`${app!.url}${path}`, { data, headers: { Origin: app!.url } });
  expect(res.status(), await res.text()).toBeLessThan(300);
  return res.json();
};

describe('serving', () => {
  it('answers / and page paths with the dashboard under a strict CSP, and leaves the API, docs and probes alone', async () => {
    for (const path of ['/', '/lists/whatever']) {
      const res = await fetch(`${app!.url}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("connect-src 'self'");
      const html = await res.text();
      expect(html).toContain('<div id="app">');
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    }
    const missing = await fetch(`${app!.url}/api/no-such-route`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('not_found');
    expect((await fetch(`${app!.url}/api/auth/me`)).status).toBe(401);
    expect((await fetch(`${app!.url}/healthz`)).headers.get('content-type')).toContain('application/json');
    expect((await fetch(`${app!.url}/readyz`)).headers.get('content-type')).toContain('application/json');
    expect(await (await fetch(`${app!.url}/docs`)).text()).toContain('swagger-ui');
    expect((await fetch(`${app!.url}/openapi.json`)).headers.get('content-type')).toContain('application/json');
    expect((await fetch(`${app!.url}/assets/no-such-file.js`)).status).toBe(404);
  });

  it('renders with every request to another host aborted, and asks nothing of any other host', async () => {
    const offline = await browser!.newContext();
    try {
      const outside: string[] = [];
      await offline.route('**/*', (route) => {
        if (route.request().url().startsWith(`${app!.url}/`)) return route.continue();
        outside.push(route.request().url());
        return route.abort();
      });
      const stranger = await offline.newPage();
      const problems = watchConsole(stranger);
      await stranger.goto(`${app!.url}/`);
      await stranger.getByRole('heading', { name: 'Sign in' }).waitFor();
      // The sandbox banner: the service runs with stand-ins (/readyz names them), and says so before anyone signs in.
      expect(await stranger.locator('.sandbox').textContent()).toContain('zerobounce, serper, pdl');
      expect(outside).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await offline.close();
    }
  });
});

describe('the dashboard, one user from sign-up on', () => {
  const email = `dash-${randomUUID()}@example.test`;
  const password = 'correct horse battery';
  let organizationId: string;
  let listId: string;
  let validAddress: string;

  it('account: signs up, signs out, refuses a wrong password in words, signs in by keyboard, shows the balance and the ledger', { timeout: 120_000 }, async () => {
    await go('');
    await page.getByRole('button', { name: 'Create one' }).click();
    await page.getByLabel('Organization name').fill('Dash Co');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByTestId('org-name').filter({ hasText: 'Dash Co' }).waitFor();
    expect(await page.getByTestId('balance').textContent()).toBe('0 credits');
    await captureScreen(page, 'lists-empty');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await alert().textContent()).toMatch(/email or password/i);

    // Keyboard only: focus moves through real fields, Enter submits the form.
    await page.getByLabel('Password').fill('');
    await page.getByLabel('Email').focus();
    await page.keyboard.press('Tab');
    await page.keyboard.type(password);
    await page.keyboard.press('Enter');
    await page.getByTestId('org-name').waitFor();

    const me = await (await context.request.get(`${app!.url}/api/auth/me`)).json();
    organizationId = me.organization.id;
    await applyCredits(h!.orm.em.fork(), { organizationId, delta: 100, reason: 'operator_grant', idempotencyKey: `test:${randomUUID()}` });
    await go('#/account');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByTestId('account-balance').filter({ hasText: '100 credits' }).waitFor();
    expect(await page.locator('table').textContent()).toContain('+100');
    const { phoneOverflow } = await captureScreen(page, 'account');
    expect(phoneOverflow).toBe(0);
  });

  it('lists: creates, renames, previews and imports a CSV with its refused rows, searches, exports and deletes', { timeout: 120_000 }, async () => {
    await go('#/lists');
    await page.getByText('No lists yet').waitFor();
    await page.getByLabel('New list name').fill('Prospects');
    await page.getByRole('button', { name: 'Create list' }).click();
    await page.getByRole('heading', { name: /Prospects/ }).waitFor();
    listId = page.url().split('#/lists/')[1]!;

    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByLabel('List name').fill('Q4 prospects');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('heading', { name: /Q4 prospects/ }).waitFor();

    validAddress = world!.mailbox(MAIL.company);
    const csv = [
      'Email,First Name,last_name,Company,linkedin_url,notes',
      `${validAddress},Jane,Doe,Acme,https://www.linkedin.com/in/dash-jane,x`,
      `${world!.nobody(MAIL.company)},John,Roe,Acme,,y`,
      `someone@${MAIL.catchAll},Ann,Lee,Anything Inc,,z`,
      'bad@acme.test,Bad,Row,Acme,https://example.com/not-a-profile,w',
    ].join('\n');
    await page.getByText('Import leads from a CSV').click();
    await page.getByTestId('import-file').setInputFiles({ name: 'leads.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    const mapping = await page.getByTestId('column-mapping').locator('th').allTextContents();
    expect(mapping).toEqual(['→ email', '→ firstName', '→ lastName', '→ company', '→ networkUrl', 'ignored']);
    await page.getByRole('button', { name: 'Import leads.csv' }).click();
    const report = page.getByTestId('import-report');
    await report.waitFor();
    expect(await report.textContent()).toContain('Imported 3 leads; 1 rows refused.');
    expect(await report.textContent()).toMatch(/Row 5: networkUrl: must be a profile URL/);
    await page.getByRole('heading', { name: /3 leads/ }).waitFor();
    expect(await page.locator('table.leads tbody tr').count()).toBe(3);
    await captureScreen(page, 'list');

    await page.getByLabel('Search').fill('lee');
    await page.getByLabel('Search').press('Enter');
    await page.locator('table.leads tbody tr').filter({ hasText: 'Ann Lee' }).waitFor();
    await expectRows('table.leads tbody tr', 1);
    await page.getByLabel('Search').fill('');
    await page.getByLabel('Search').press('Enter');
    await expectRows('table.leads tbody tr', 3);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('Q4 prospects.csv');
    const exported = await streamText(await download.createReadStream());
    expect(exported.split('\r\n')[0]).toBe('firstName,lastName,title,company,companyDomain,email,emailStatus,networkUrl,workEmail,personalEmail,phone,source');
    expect(exported).toContain('Jane,Doe,,Acme');

    // Refused: a file whose header names no lead field; the API's sentence and the accepted names are shown.
    await page.getByTestId('import-file').setInputFiles({ name: 'junk.csv', mimeType: 'text/csv', buffer: Buffer.from('colour,size\nred,9\n') });
    await page.getByRole('button', { name: 'Import junk.csv' }).click();
    expect(await alert().textContent()).toMatch(/No recognized column in the header row.*Accepted column names: .*email/);

    // A second list, deleted again after the confirmation step.
    await go('#/lists');
    await page.getByLabel('New list name').fill('Scratch');
    await page.getByRole('button', { name: 'Create list' }).click();
    await page.getByRole('heading', { name: /Scratch/ }).waitFor();
    await page.getByRole('button', { name: 'Delete list' }).click();
    await page.getByRole('button', { name: /Delete "Scratch"/ }).click();
    await page.getByRole('link', { name: 'Q4 prospects' }).waitFor();
    expect(await page.getByRole('link', { name: 'Scratch' }).count()).toBe(0);
  });

  it('verification: SMTP then a paid fill of the gaps, live progress, the four decisions priced, evidence and the transcript, download', { timeout: 180_000 }, async () => {
    const gap = `someone@${MAIL.catchAll}`;
    world!.providers.zerobounce.fixtures.verdicts.set(gap, { status: 'valid' });
    await go(`#/lists/${listId}`);
    await page.getByRole('link', { name: 'Verify emails' }).click();
    await page.getByLabel(/SMTP, then pay to fill the gaps/).check();
    expect(await page.getByText('Provider only ($0.0005 per email)').count()).toBe(1);
    await captureScreen(page, 'verification-start');
    await page.getByRole('button', { name: 'Start verification' }).click();

    const decision = page.getByTestId('decision');
    await decision.waitFor({ timeout: 120_000 });
    expect(await page.getByTestId('stage').textContent()).toBe('Waiting for your decision');
    expect(await decision.locator('.price').allTextContents()).toEqual(['free', '$0.00', '$0.0005', '$0.0005']);
    expect(await decision.getByRole('button', { name: /Verify the 0 unknown/ }).isDisabled()).toBe(true);
    expect(await page.getByTestId('coverage').textContent()).toContain('66.67 %');
    await captureScreen(page, 'verification-decision');
    await decision.getByRole('button', { name: /Verify all 1 gaps/ }).click();

    await page.getByTestId('stage').filter({ hasText: 'Completed' }).waitFor({ timeout: 120_000 });
    expect(await page.getByTestId('coverage').textContent()).toContain('100.00 %');
    expect(await page.getByTestId('counts').textContent()).toContain('Provider');
    expect(await page.getByTestId('domains').textContent()).toContain(MAIL.catchAll);
    expect(await page.locator('.warnings').count()).toBe(0);

    const results = page.getByTestId('results');
    await results.locator('tbody tr').filter({ hasText: gap }).waitFor();
    const valid = results.locator('tbody tr').filter({ hasText: validAddress });
    expect(await valid.textContent()).toContain('250');
    await valid.getByRole('button', { name: 'Transcript' }).click();
    const transcript = await page.getByTestId('transcript').textContent();
    expect(transcript).toContain('RCPT TO:');
    expect(transcript).not.toContain('DATA');
    await captureScreen(page, 'verification-results');

    const href = await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href');
    const csv = await (await context.request.get(`${app!.url}${href}`)).text();
    expect(csv.split('\n')[0]).toContain('email,result,source');
    expect(csv).toContain(`${gap},Valid,api`);

    // Refused: a list without any email cannot be verified; the reason is shown in words.
    const empty = await apiPost('/api/lists', { name: 'No emails' });
    await apiPost(`/api/lists/${empty.id}/leads`, { leads: [{ firstName: 'Nobody' }] });
    await go(`#/verification?list=${empty.id}`);
    await page.getByRole('button', { name: 'Start verification' }).click();
    expect(await alert().textContent()).toMatch(/email/i);
    expect(await alert().textContent()).not.toMatch(/unprocessable/);
  });
});

/** Waits for the table to show `n` rows (the page's CSP forbids evaluating strings, so Playwright polls locators). */
async function expectRows(selector: string, n: number) {
  await expect.poll(() => page.locator(selector).count(), { timeout: 60_000 }).toBe(n);
}

async function streamText(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
