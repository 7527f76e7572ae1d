import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDashboardBuilt } from '../../scripts/build-dashboard.ts';
import { applyCredits } from '../../src/accounts/credits.ts';
import { createSearchProvider } from '../../src/providers/search/index.ts';
import { launchChromium } from '../support/browser.ts';
import { CLEAN_LAYOUT, checkLayout, openDashboardPage, watchConsole } from '../support/dashboard-ui.ts';
import { buildOpenApiDocument } from '../../src/http/openapi.ts';
import {
  type EnrichmentWorld,
  MAIL,
  startEnrichmentWorld,
  withFastProviders,
} from '../support/enrichment/world.ts';
import { eventually } from '../support/eventually.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { FAST_TUNING } from '../support/providers/tuning.ts';
import { companyRows } from '../support/scrape.ts';
import { type ServedApp, serveApp } from '../support/served-app.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';

// The dashboard as a user meets it: the built bundle served by the app at `/`, driven through its screens in
// Chromium against the sandbox stand-ins (mail world, provider servers) and a real worker. One browser, one
// user's context for the walk (the steps build on each other, as a session does), a fresh context where a test
// needs a stranger or a cut-off network.

/** CONTRACT §15's list export, built on another branch: its download is checked once the service declares it. */
const EXPORT_ROUTE = '/api/lists/{listId}/leads/export' in (buildOpenApiDocument().paths ?? {});

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
    env: {
      ...world.env,
      SANDBOX: 'zerobounce,serper,pdl',
      WEBHOOK_ALLOW_INSECURE: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      SMTP_GREYLIST_SCHEDULE: '',
    },
    deps: (base) => withFastProviders({ ...base, search: createSearchProvider(base.config, FAST_TUNING) }),
  });
  app = await serveApp(h);
  browser = await launchChromium();
  ({ context, page, consoleProblems } = await openDashboardPage(browser, { acceptDownloads: true }));
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
    expect((await fetch(`${app!.url}/openapi.json`)).headers.get('content-type')).toContain(
      'application/json',
    );
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

  it(
    'account: signs up, signs out, refuses a wrong password in words, signs in by keyboard, shows the balance and the ledger',
    { timeout: 120_000 },
    async () => {
      await go('');
      await page.getByRole('button', { name: 'Create one' }).click();
      await page.getByLabel('Organization name').fill('Dash Co');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByTestId('org-name').filter({ hasText: 'Dash Co' }).waitFor();
      expect(await page.getByTestId('balance').textContent()).toBe('0 credits');
      expect(await checkLayout(page, 'lists-empty'), 'lists-empty').toEqual(CLEAN_LAYOUT);

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
      await applyCredits(h!.orm.em.fork(), {
        organizationId,
        delta: 100,
        reason: 'operator_grant',
        idempotencyKey: `test:${randomUUID()}`,
      });
      await go('#/account');
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.getByTestId('account-balance').filter({ hasText: '100 credits' }).waitFor();
      expect(await page.locator('table').textContent()).toContain('+100');
      expect(await checkLayout(page, 'account'), 'account').toEqual(CLEAN_LAYOUT);
    },
  );

  it(
    'lists: creates, renames, previews and imports a CSV with its refused rows, searches, exports and deletes',
    { timeout: 120_000 },
    async () => {
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
      await page
        .getByTestId('import-file')
        .setInputFiles({ name: 'leads.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
      await page.getByTestId('column-mapping').waitFor();
      const selects = await page.getByTestId('column-mapping').locator('select').all();
      expect(await Promise.all(selects.map((select) => select.inputValue()))).toEqual([
        'email',
        'firstName',
        'lastName',
        'company',
        'networkUrl',
        '',
      ]);
      await page.getByRole('button', { name: 'Import leads.csv' }).click();
      const report = page.getByTestId('import-report');
      await report.waitFor();
      expect(await report.textContent()).toContain('Imported 3 leads; 1 row refused');
      expect(await report.textContent()).toMatch(/Row 5: networkUrl: must be a profile URL/);
      await page.getByRole('heading', { name: /3 leads/ }).waitFor();
      expect(await page.locator('table.leads tbody tr').count()).toBe(3);
      expect(await checkLayout(page, 'list'), 'list').toEqual(CLEAN_LAYOUT);

      await page.getByLabel('Search').fill('lee');
      await page.getByLabel('Search').press('Enter');
      await page.locator('table.leads tbody tr').filter({ hasText: 'Ann Lee' }).waitFor();
      await expectRows('table.leads tbody tr', 1);
      await page.getByLabel('Search').fill('');
      await page.getByLabel('Search').press('Enter');
      await expectRows('table.leads tbody tr', 3);

      // The export is the service's stream (CONTRACT §15), a plain link: checked once that route exists.
      expect(await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href')).toBe(`/api/lists/${listId}/leads/export`);
      if (EXPORT_ROUTE) {
        const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
        expect(download.suggestedFilename()).toBe('Q4 prospects.csv');
        const exported = await streamText(await download.createReadStream());
        expect(exported).toContain('Jane,Doe');
      }

      // Refused before sending: a file whose header names no lead field cannot be imported until a column is mapped.
      await page.getByTestId('import-file').setInputFiles({
        name: 'junk.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from('colour,size\nred,9\n'),
      });
      expect(await page.getByTestId('nothing-mapped').textContent()).toMatch(/No column is imported/);
      expect(await page.getByRole('button', { name: 'Import junk.csv' }).isDisabled()).toBe(true);

      // A second list, deleted again after the confirmation step.
      await go('#/lists');
      await page.getByLabel('New list name').fill('Scratch');
      await page.getByRole('button', { name: 'Create list' }).click();
      await page.getByRole('heading', { name: /Scratch/ }).waitFor();
      await page.getByRole('button', { name: 'Delete list' }).click();
      await page.getByRole('button', { name: /Delete "Scratch"/ }).click();
      await page.getByRole('link', { name: 'Q4 prospects' }).waitFor();
      expect(await page.getByRole('link', { name: 'Scratch' }).count()).toBe(0);
    },
  );

  it(
    'verification: SMTP then a paid fill of the gaps, live progress, only the decisions with something to buy priced, evidence and the transcript, download',
    { timeout: 180_000 },
    async () => {
      const gap = `someone@${MAIL.catchAll}`;
      world!.providers.zerobounce.fixtures.verdicts.set(gap, { status: 'valid' });
      await go(`#/lists/${listId}`);
      await page.getByRole('link', { name: 'Verify emails' }).click();
      await page.getByLabel(/Mail server check, then pay to fill the gaps/).check();
      expect(await page.getByText('Provider only ($0.0005 per email)').count()).toBe(1);
      expect(await checkLayout(page, 'verification-start'), 'verification-start').toEqual(CLEAN_LAYOUT);
      await page.getByRole('button', { name: 'Start verification' }).click();

      const decision = page.getByTestId('decision');
      await decision.waitFor({ timeout: 120_000 });
      expect(await page.getByTestId('stage').textContent()).toBe('Waiting for your decision');
      // One catch-all gap and no unknown: the free result and that one paid choice, nothing offered at $0.00.
      expect(await decision.locator('.price').allTextContents()).toEqual(['free', '$0.0005']);
      expect(await decision.getByRole('button', { name: /unknown|all 1 gaps/ }).count()).toBe(0);
      expect(await page.getByTestId('coverage').textContent()).toContain('66.67%');
      expect(await checkLayout(page, 'verification-decision'), 'verification-decision').toEqual(CLEAN_LAYOUT);
      await decision.getByRole('button', { name: /Verify the 1 catch-all/ }).click();
      await decision.getByRole('button', { name: 'Confirm and pay $0.0005' }).click();

      await page.getByTestId('stage').filter({ hasText: 'Completed' }).waitFor({ timeout: 120_000 });
      expect(await page.getByTestId('coverage').textContent()).toContain('100%');
      expect(await page.getByTestId('provider-spend').textContent()).toBe('1 address verified for $0.0005');
      expect(await page.getByTestId('counts').textContent()).toContain('Provider');
      expect(await page.getByTestId('domains').textContent()).toContain(MAIL.catchAll);
      expect(await page.locator('.warnings').count()).toBe(0);

      const results = page.getByTestId('results');
      await results.locator('tbody tr').filter({ hasText: gap }).waitFor();
      // The provider's verdict is the evidence; the mail server's catch-all 250 stays labelled as the server's.
      const filled = (await results.locator('tbody tr').filter({ hasText: gap }).textContent()) ?? '';
      expect(filled).toMatch(/The provider: /);
      expect(filled).toMatch(/before it, the mail server: 250/);
      const valid = results.locator('tbody tr').filter({ hasText: validAddress });
      expect(await valid.textContent()).toContain('250');
      await valid.getByRole('button', { name: 'Transcript' }).click();
      const transcript = await page.getByTestId('transcript').textContent();
      expect(transcript).toContain('RCPT TO:');
      expect(transcript).not.toContain('DATA');
      expect(await checkLayout(page, 'verification-results'), 'verification-results').toEqual(CLEAN_LAYOUT);

      const href = await page.getByTestId('downloads').getByRole('link', { name: 'All', exact: true }).getAttribute('href');
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

      // Refused: a decision on a job that has moved on (decided elsewhere while this tab, without its live
      // stream, still shows the choices) is answered in words with the job's current state.
      const later = await apiPost('/api/lists', { name: 'Decided elsewhere' });
      await apiPost(`/api/lists/${later.id}/leads`, { leads: [{ email: `late@${MAIL.catchAll}` }] });
      const started = await apiPost('/api/verification/jobs', {
        listId: later.id,
        verificationMethod: 'smtp_api_fallback',
      });
      const stageOf = async () =>
        (
          (await (await context.request.get(`${app!.url}/api/verification/jobs/${started.id}`)).json()) as {
            verificationStage: string;
          }
        ).verificationStage;
      await eventually(stageOf, (stage) => stage === 'awaiting_decision', { what: 'the job awaiting a decision', timeoutMs: 120_000, intervalMs: 250 });
      const stale = await context.newPage();
      try {
        // The stream is left unanswered, not refused: a refused one shows "Connection lost", and the recovery that
        // follows reloads the screen (the decision card with it) at a moment that races the clicks below.
        await stale.route('**/events', () => undefined);
        await stale.goto(`${app!.url}/#/verification/${started.id}`);
        const choices = stale.getByTestId('decision');
        await choices.waitFor();
        await apiPost(`/api/verification/jobs/${started.id}/decision`, { decision: 'accept_current' });
        await choices.getByRole('button', { name: /Verify the 1 catch-all/ }).click();
        await choices.getByRole('button', { name: 'Confirm and pay $0.0005' }).click();
        expect(await choices.getByRole('alert').textContent()).toMatch(/completed/);
      } finally {
        await stale.close();
      }
    },
  );

  it(
    'settings: providers (order, on/off, own key never shown back), API keys (secret once, revoke), webhook endpoints; refusals in words',
    { timeout: 120_000 },
    async () => {
      await go('#/settings');
      const lusha = page.getByTestId('provider-lusha');
      await lusha.getByLabel('Enabled').uncheck();
      await page.getByText('Lusha is off.').waitFor();
      await lusha.getByRole('button', { name: 'Move Lusha up' }).click();
      await page.getByText('Order saved.').waitFor();
      expect(await page.locator('.providers > li strong').allTextContents()).toEqual([
        'Email finder (this service)',
        'People Data Labs',
        'Lusha',
        'Hunter',
      ]);
      const ownKey = `hunter-own-${randomUUID()}`;
      const hunter = page.getByTestId('provider-hunter');
      await hunter.getByLabel('Your own API key').fill(ownKey);
      await hunter.getByRole('button', { name: 'Save key' }).click();
      await page.getByText('The Hunter key is stored.').waitFor();
      await hunter.getByRole('button', { name: 'Remove key' }).waitFor();
      expect(await hunter.getByLabel('Your own API key').getAttribute('placeholder')).toContain('stored');
      await page.reload();
      await page.getByTestId('provider-hunter').getByRole('button', { name: 'Remove key' }).waitFor();
      expect(await page.content()).not.toContain(ownKey);
      // Back to the platform's providers for the enrichment below.
      await page.getByTestId('provider-hunter').getByRole('button', { name: 'Remove key' }).click();
      await page.getByText('The key is removed.').waitFor();
      await page.getByTestId('provider-lusha').getByLabel('Enabled').check();
      await page.getByText('Lusha is on.').waitFor();

      // API keys: a key without any scope is refused before sending, in words beside the scopes.
      const keyForm = page.getByRole('form', { name: 'New API key' });
      await keyForm.getByLabel('Key name').fill('Dialer');
      await keyForm.getByRole('button', { name: 'Create key' }).click();
      expect(await keyForm.locator('.field-error').textContent()).toBe('Choose at least one.');
      await keyForm.getByLabel('leads:read').check();
      await keyForm.getByRole('button', { name: 'Create key' }).click();
      const secret = (await page.getByTestId('new-key').locator('code').textContent())!;
      expect(secret).toMatch(/^lek_/);
      const keys = page.getByTestId('keys');
      await keys.getByText('Dialer').waitFor();
      expect(await keys.textContent()).toContain(secret.slice(0, 8));
      expect(await keys.textContent()).not.toContain(secret);
      const byKey = await context.request.get(`${app!.url}/api/external/leads`, {
        headers: { 'X-API-Key': secret },
      });
      expect(byKey.status()).toBe(200);
      await keys.getByRole('button', { name: 'Revoke' }).click();
      await keys.getByRole('button', { name: 'Revoke Dialer now' }).click();
      await keys.getByText(/revoked/).waitFor();
      expect(
        (
          await context.request.get(`${app!.url}/api/external/leads`, { headers: { 'X-API-Key': secret } })
        ).status(),
      ).toBe(401);

      // Webhooks: a URL that is no URL is refused in words; a good one shows its signing secret once.
      const hookForm = page.getByRole('form', { name: 'New webhook endpoint' });
      await hookForm.getByLabel('Endpoint URL').fill('not a url');
      await hookForm.getByLabel('all events').check();
      await hookForm.getByRole('button', { name: 'Add endpoint' }).click();
      expect(await hookForm.locator('.field-error').textContent()).toMatch(/webhook URL/i);
      await hookForm.getByLabel('Endpoint URL').fill(receiver!.url('/hooks'));
      await hookForm.getByLabel('all events').check();
      await hookForm.getByRole('button', { name: 'Add endpoint' }).click();
      expect(await page.getByTestId('new-webhook').locator('code').textContent()).toMatch(/^whsec_/);
      await page.getByTestId('endpoints').getByText(receiver!.url('/hooks')).waitFor();
      // Egress health (CONTRACT §13): the harness's app has no worker of its own to report, and says so; Refresh by keyboard.
      const egress = page.getByTestId('egress');
      await egress.getByText(/No worker runs in the process that answered/).waitFor();
      await egress.getByRole('button', { name: 'Refresh' }).focus();
      await page.keyboard.press('Enter');
      await egress.getByText(/No worker runs in the process that answered/).waitFor();
      expect(await checkLayout(page, 'settings'), 'settings').toEqual(CLEAN_LAYOUT);
    },
  );

  it(
    'scrape: the three kinds with their samples, upload, live progress, pause and resume, items, download and sync into a list',
    { timeout: 180_000 },
    async () => {
      const serper = world!.providers.serper;
      const rows = companyRows(12, 3, serper, 'dash');
      // Slow searches, so the job is still running when the user pauses it.
      serper.setMode({ kind: 'delay', ms: 10_000 });
      await go('#/scrape');
      await page.getByText('No scrape job yet').waitFor();
      for (const kind of ['companies', 'names', 'domains']) {
        const sample = await page.getByRole('link', { name: `Sample ${kind}.csv` }).getAttribute('href');
        expect((await context.request.get(`${app!.url}${sample}`)).status()).toBe(200);
      }
      expect(await checkLayout(page, 'scrape-start'), 'scrape-start').toEqual(CLEAN_LAYOUT);
      // Refused: a header the service cannot read.
      await page.getByLabel('CSV file').setInputFiles({
        name: 'junk.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from('colour,size\nred,9\n'),
      });
      await page.getByRole('button', { name: 'Start scrape' }).click();
      expect(await alert().textContent()).toMatch(/No recognized column.*Accepted column names/);

      await page
        .getByLabel('CSV file')
        .setInputFiles({ name: 'companies.csv', mimeType: 'text/csv', buffer: Buffer.from(rows.csv) });
      await page.getByLabel(/Job name/).fill('Dash targets');
      await page.getByRole('button', { name: 'Start scrape' }).click();
      await page.getByRole('heading', { name: 'Dash targets' }).waitFor();
      await page.getByRole('button', { name: 'Pause' }).click();
      await page.getByTestId('scrape-status').filter({ hasText: 'paused' }).waitFor();
      expect(await checkLayout(page, 'scrape-paused'), 'scrape-paused').toEqual(CLEAN_LAYOUT);
      serper.setMode({ kind: 'normal' });
      await page.getByRole('button', { name: 'Resume' }).click();
      await page.getByTestId('scrape-status').filter({ hasText: 'completed' }).waitFor({ timeout: 120_000 });
      expect(await page.getByTestId('found').textContent()).toBe(
        `${rows.found.size} profiles in 12 rows searched`,
      );
      await expectRows('[data-testid=items] tbody tr', 12);

      const found = await page.getByRole('link', { name: 'Download found only' }).getAttribute('href');
      const csv = (await (await context.request.get(`${app!.url}${found}`)).text()).trim().split('\n');
      expect(csv[0]!.trim()).toBe('first_name,last_name,company,role,network_url,status');
      expect(csv).toHaveLength(1 + rows.found.size);

      await page.getByRole('button', { name: 'Sync finds into a new list' }).click();
      await page.getByRole('link', { name: 'Open the list' }).click();
      await page
        .getByRole('heading', { name: new RegExp(`Dash targets.*${rows.found.size} leads`) })
        .waitFor();
      await expectRows('table.leads tbody tr', rows.found.size);
    },
  );

  it(
    'enrichment: one profile, then a whole list with its estimate first, live progress, credits used; refusals in words',
    { timeout: 180_000 },
    async () => {
      const pdl = world!.providers.pdl;
      const single = world!.profile('dash-single');
      const singleEmail = world!.mailbox(MAIL.company);
      pdl.fixtures.people.set(single, {
        first_name: 'Sam',
        last_name: 'Single',
        job_title: 'CFO',
        job_company_name: 'Acme',
        work_email: singleEmail,
      });
      const janeEmail = world!.mailbox(MAIL.company);
      pdl.fixtures.people.set('https://www.linkedin.com/in/dash-jane', {
        first_name: 'Jane',
        last_name: 'Doe',
        work_email: janeEmail,
        mobile_phone: '+14155550177',
      });

      await go('#/enrichment');
      const lookup = page.getByRole('form', { name: 'Look up one profile' });
      await lookup.getByLabel('Profile URL').fill('https://example.com/jane');
      await lookup.getByRole('button', { name: 'Enrich' }).click();
      expect(await lookup.locator('.field-error').textContent()).toMatch(/profile URL/);
      await lookup.getByLabel('Profile URL').fill(single);
      await lookup.getByRole('button', { name: 'Enrich' }).click();
      const result = page.getByTestId('enrich-result');
      await result.waitFor();
      expect(await result.textContent()).toContain(singleEmail);
      expect(await result.textContent()).toContain('Credits used: 1.');
      await page.getByTestId('balance').filter({ hasText: '99 credits' }).waitFor();

      await go(`#/enrichment?list=${listId}`);
      const bulk = page.getByRole('form', { name: 'Enrich a list' });
      await page.getByTestId('bulk-estimate').filter({ hasText: 'At most 12 credits for 3 leads' }).waitFor();
      await bulk.getByLabel(/Personal email/).uncheck();
      await page.getByTestId('bulk-estimate').filter({ hasText: 'At most 9 credits for 3 leads' }).waitFor();
      expect(await checkLayout(page, 'enrichment'), 'enrichment').toEqual(CLEAN_LAYOUT);
      await bulk.getByRole('button', { name: 'Start enrichment' }).click();
      expect(await bulk.getByTestId('confirm-spend').textContent()).toContain('At most 9 credits to enrich 3 leads');
      await bulk.getByRole('button', { name: 'Confirm and pay At most 9 credits' }).click();
      const job = page.getByTestId('bulk-job');
      await job.getByText(/: Completed/).waitFor({ timeout: 120_000 });
      expect(await page.getByTestId('bulk-credits').textContent()).toBe('3 of at most 9 credits');
      await page.getByTestId('balance').filter({ hasText: '96 credits' }).waitFor();
      await go('#/enrichment');
      const listed = page.getByTestId('bulk-jobs').locator('tbody tr').first();
      await listed.getByText('Q4 prospects').waitFor();
      expect(await listed.textContent()).toContain('Completed');
      await listed.getByRole('link', { name: 'Q4 prospects' }).click();
      await job.getByRole('link', { name: 'open the list' }).click();
      const jane = page.locator('table.leads tbody tr').filter({ hasText: 'Jane Doe' });
      await jane.getByText(janeEmail).waitFor();
      expect(await jane.textContent()).toContain('(415) 555-0177');
      // The same row shows the lead's verification result from the job above.
      expect(await jane.locator('.status').textContent()).toBe('Valid');
    },
  );

  it(
    'settings: the webhook delivery log shows the jobs’ events, and a delivery can be sent again',
    { timeout: 120_000 },
    async () => {
      await go('#/settings');
      const endpoint = page.getByTestId('endpoints').locator('li').first();
      await endpoint.getByRole('button', { name: 'Deliveries' }).click();
      const log = page.getByTestId('deliveries');
      // Deliveries go out within seconds of each event; the log is read again until the last job's is there.
      await eventually(
        async () => {
          await endpoint.getByRole('button', { name: 'Refresh' }).click();
          return (await log.count()) > 0 ? await log.textContent() : '';
        },
        (text) => text?.includes('enrichment.completed') === true,
        { what: 'the enrichment.completed delivery in the log', intervalMs: 500 },
      );
      const scrape = log.locator('tbody tr').filter({ hasText: 'scrape.completed' });
      expect(await scrape.textContent()).toContain('Succeeded');
      const before = receiver!.to('/hooks').length;
      await scrape.getByRole('button', { name: 'Retry' }).click();
      await page.getByText('The delivery is sent again.').waitFor();
      await eventually(() => receiver!.to('/hooks').length, (n) => n > before, { what: 'the delivery sent again', timeoutMs: 30_000 });
      expect(await checkLayout(page, 'webhooks'), 'webhooks').toEqual(CLEAN_LAYOUT);
      expect(consoleProblems).toEqual([]);
    },
  );
});

describe('a verification job with a warning', () => {
  it('shows the worker’s warning at the top of the job, in words', { timeout: 180_000 }, async () => {
    // A second app whose worker cannot trust its resolver: the canary domain does not resolve in the mail world.
    const distrustful = await startHarness({
      worker: true,
      env: { ...world!.env, SMTP_CANARY_DOMAINS: 'canary.missing.test' },
      deps: withFastProviders,
    });
    const served = await serveApp(distrustful);
    const own = await browser!.newContext({ viewport: { width: 1280, height: 800 } });
    own.setDefaultTimeout(60_000);
    try {
      const send = async (path: string, data: unknown) => {
        const res = await own.request.post(`${served.url}${path}`, { data, headers: { Origin: served.url } });
        expect(res.status(), await res.text()).toBeLessThan(300);
        return res.json();
      };
      await send('/api/auth/signup', {
        email: `warn-${randomUUID()}@example.test`,
        password: 'correct horse battery',
        organizationName: 'Warned Co',
      });
      const list = await send('/api/lists', { name: 'Warned' });
      await send(`/api/lists/${list.id}/leads`, { leads: [{ email: world!.mailbox(MAIL.company) }] });
      const job = await send('/api/verification/jobs', { listId: list.id, verificationMethod: 'smtp_only' });
      const warned = await own.newPage();
      await warned.goto(`${served.url}/#/verification/${job.id}`);
      await warned.getByTestId('stage').filter({ hasText: 'Completed' }).waitFor({ timeout: 120_000 });
      const warning = warned.locator('.warnings');
      await warning.waitFor();
      expect(await warning.getAttribute('role')).toBe('alert');
      expect(await warning.textContent()).toMatch(/resolver/i);
      expect(await checkLayout(warned, 'verification-warning'), 'verification-warning').toEqual(CLEAN_LAYOUT);
    } finally {
      await own.close();
      await served.close();
      await distrustful.stop();
    }
  });
});

describe('catch-all scores', () => {
  it(
    'the decision shows the score bands and fills only the low scores, priced; results show score and reasons, filtered; the calibration takes an outcomes import',
    { timeout: 240_000 },
    async () => {
      const own = await browser!.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
      own.setDefaultTimeout(60_000);
      try {
        const send = async (path: string, data: unknown) => {
          const res = await own.request.post(`${app!.url}${path}`, { data, headers: { Origin: app!.url } });
          expect(res.status(), await res.text()).toBeLessThan(300);
          return res.json();
        };
        await send('/api/auth/signup', { email: `scores-${randomUUID()}@example.test`, password: 'correct horse battery', organizationName: 'Scored Co' });
        // Before any job: the calibration says so in words, not as eleven rows of zeros.
        const first = await own.newPage();
        await first.goto(`${app!.url}/#/verification`);
        expect(await first.getByTestId('calibration-empty').textContent()).toMatch(/^No catch-all results yet/);
        expect(await checkLayout(first, 'verification-calibration-empty'), 'verification-calibration-empty').toEqual(CLEAN_LAYOUT);
        await first.close();
        // Six Catch-All addresses, scored in the database as the assessment step would leave them.
        const scores = new Map([1, 2, 3, 5, 7, 9].map((score) => [`s${score}@${MAIL.catchAll}`, score]));
        for (const email of scores.keys()) world!.providers.zerobounce.fixtures.verdicts.set(email, { status: 'valid' });
        const list = await send('/api/lists', { name: 'Scored' });
        await send(`/api/lists/${list.id}/leads`, { leads: [...scores.keys()].map((email) => ({ email })) });
        const job = await send('/api/verification/jobs', { listId: list.id, verificationMethod: 'smtp_api_fallback' });
        const stageOf = async () => ((await (await own.request.get(`${app!.url}/api/verification/jobs/${job.id}`)).json()) as { verificationStage: string }).verificationStage;
        await eventually(stageOf, (stage) => stage === 'awaiting_decision', { what: 'the job awaiting a decision', timeoutMs: 120_000, intervalMs: 250 });
        for (const [email, score] of scores) {
          const reasons = score === 7 ? ['domain_catch_all', 'pattern_match'] : ['domain_catch_all'];
          await h!.sql(`update verification_result set catch_all_score = ?, catch_all_reasons = ?::jsonb where job_id = ? and email = ?`, [score, JSON.stringify(reasons), job.id, email]);
        }

        const scored = await own.newPage();
        const problems = watchConsole(scored);
        await scored.goto(`${app!.url}/#/verification/${job.id}`);
        const fill = scored.getByTestId('scored-fill');
        await fill.waitFor({ timeout: 60_000 });
        const bands = fill.getByTestId('catch-all-bands').locator('tbody tr');
        expect(await bands.count()).toBe(11);
        expect((await bands.allTextContents()).map((row) => row.replace(/\s+/g, ' ').trim())).toEqual(
          ['00', '11', '21', '31', '40', '51', '60', '71', '80', '91', '100'],
        );
        // Scores 0–4 by default: three addresses at $0.0005 each, from micro-dollars.
        expect(await fill.getByRole('button').textContent()).toBe('Fill the 3 catch-alls scored 0–4: $0.0015');
        // No address scored 0: nothing to buy is said in words, with no button to press.
        await fill.getByLabel('Fill catch-alls scored 0 to').selectOption('0');
        expect(await fill.getByTestId('scored-fill-empty').textContent()).toBe('No catch-all address is scored 0: pick a higher score to include some.');
        expect(await fill.getByRole('button').count()).toBe(0);
        await fill.getByLabel('Fill catch-alls scored 0 to').selectOption('5');
        expect(await fill.getByRole('button').textContent()).toBe('Fill the 4 catch-alls scored 0–5: $0.002');
        expect(await checkLayout(scored, 'verification-score-bands'), 'verification-score-bands').toEqual(CLEAN_LAYOUT);
        await fill.getByRole('button').click();
        await fill.getByRole('button', { name: 'Confirm and pay $0.002' }).click();
        await scored.getByTestId('stage').filter({ hasText: 'Completed' }).waitFor({ timeout: 120_000 });
        const done = await (await own.request.get(`${app!.url}/api/verification/jobs/${job.id}`)).json();
        expect(done).toMatchObject({ userDecision: 'fill_catchall_only', catchAllMaxScore: 5, apiVerifiedEmails: 4, apiCost: 0.002 });
        expect(await scored.getByText('catch-alls scored 0–5 only').count()).toBe(1);

        // The two above the bound stay Catch-All, each with its badge and its reasons in words.
        const results = scored.getByTestId('results');
        const seven = results.locator('tbody tr').filter({ hasText: `s7@${MAIL.catchAll}` });
        await seven.locator('.score').waitFor();
        expect(await seven.locator('.score').textContent()).toBe('7/10');
        expect(await seven.locator('.reasons li').allTextContents()).toEqual([
          'the domain accepts every address, so its server could not say',
          "matches the domain's usual address pattern",
        ]);
        await scored.getByRole('combobox', { name: /^from/ }).selectOption('8');
        await eventually(() => results.locator('tbody tr').allTextContents(), (rows) => rows.length === 1 && rows[0]!.includes(`s9@${MAIL.catchAll}`), { what: 'only the score-9 result' });
        const href = await scored.getByTestId('download-filtered').getAttribute('href');
        expect(href).toContain('minScore=8');
        const csv = (await (await own.request.get(`${app!.url}${href}`)).text()).trim().split('\n');
        expect(csv).toHaveLength(2);
        expect(csv[1]).toContain(`s9@${MAIL.catchAll},Catch-All`);

        // The calibration: the scores still held by Catch-All results (the fill made 1, 2, 3 and 5 Valid), under the
        // verification page, fed by an outcomes import.
        await scored.goto(`${app!.url}/#/verification`);
        const calibration = scored.getByTestId('calibration');
        await calibration.waitFor();
        expect(await calibration.locator('tbody tr th').allTextContents()).toEqual(['7', '9']);
        expect(await scored.getByTestId('calibration-no-outcomes').isVisible()).toBe(true);
        await scored.getByRole('form', { name: 'Import send outcomes' }).getByLabel('CSV file').setInputFiles({
          name: 'outcomes.csv',
          mimeType: 'text/csv',
          buffer: Buffer.from(`email,outcome,bounce_type\ns7@${MAIL.catchAll},delivered,\ns9@${MAIL.catchAll},bounced,hard\nnot-an-address,delivered,\n`),
        });
        await scored.getByRole('button', { name: 'Import send outcomes' }).click();
        const report = scored.getByTestId('outcome-import');
        await report.waitFor();
        expect(await report.getByRole('status').textContent()).toBe('2 outcomes accepted, 1 row not used:');
        expect(await report.locator('li').allTextContents()).toEqual(['Row 3: "not-an-address" is not a valid email address']);
        const rowOf = (score: number) => calibration.locator('tbody tr', { has: scored.locator('th', { hasText: new RegExp(`^${score}$`) }) });
        await eventually(() => rowOf(9).textContent(), (text) => text === '9111100%', { what: 'the score-9 band with its bounce' });
        expect(await rowOf(7).textContent()).toBe('71100%');
        expect(await scored.getByTestId('calibration-no-outcomes').count()).toBe(0);
        // Refused: a file without the needed columns, said in words.
        await scored.getByRole('form', { name: 'Import send outcomes' }).getByLabel('CSV file').setInputFiles({ name: 'x.csv', mimeType: 'text/csv', buffer: Buffer.from('name\nAnn\n') });
        await scored.getByRole('button', { name: 'Import send outcomes' }).click();
        expect(await scored.getByRole('alert').first().textContent()).toMatch(/email and outcome/);
        expect(await checkLayout(scored, 'verification-calibration'), 'verification-calibration').toEqual(CLEAN_LAYOUT);
        expect(problems).toEqual([]);
      } finally {
        await own.close();
      }
    },
  );
});

/** Waits for the table to show `n` rows (the page's CSP forbids evaluating strings, so Playwright polls locators). */
async function expectRows(selector: string, n: number) {
  await eventually(() => page.locator(selector).count(), (count) => count === n, { what: `${n} rows of ${selector}` });
}

async function streamText(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
