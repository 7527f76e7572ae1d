import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDashboardBuilt } from '../../scripts/build-dashboard.ts';
import { applyCredits } from '../../src/accounts/credits.ts';
import { listen } from '../../src/http/server.ts';
import { createSearchProvider } from '../../src/providers/search/index.ts';
import { launchChromium } from '../support/browser.ts';
import { CLEAN_LAYOUT, checkLayout, openDashboardPage } from '../support/dashboard-ui.ts';
import { type EnrichmentWorld, MAIL, startEnrichmentWorld, withFastProviders } from '../support/enrichment/world.ts';
import { eventually } from '../support/eventually.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { FAST_TUNING } from '../support/providers/tuning.ts';
import { companyRows, personOf } from '../support/scrape.ts';

// The sales pipeline as one story in the browser (issue #30): companies → scrape → list → find the missing emails
// → verify (with a paid decision) → download → re-import, the paid starts confirmed, the service stopped and back,
// a teammate invited; every screen checked at 390 px (no sideways page scroll) and 1280 px (tables fit), with a
// screenshot of each step in test-results/screenshots/.


let world: EnrichmentWorld | undefined;
let h: Harness | undefined;
let server: Server | undefined;
let origin = '';
let browser: Browser | undefined;
let context: BrowserContext;
let page: Page;
let consoleProblems: string[];

/** The app over HTTP on a fixed loopback port, so it can be stopped and started again at the same address. */
async function serve(port = 0): Promise<number> {
  const address = await new Promise<{ port: number }>((resolve, reject) => {
    server = listen(h!.app.fetch, { port, hostname: '127.0.0.1' }, (info) => resolve(info));
    server.once('error', reject);
  });
  return address.port;
}
async function stopServing() {
  await new Promise<void>((resolve) => {
    server!.closeAllConnections();
    server!.close(() => resolve());
  });
}

beforeAll(async () => {
  await ensureDashboardBuilt();
  world = await startEnrichmentWorld({ ipBase: 96 });
  h = await startHarness({
    worker: true,
    env: { ...world.env, SANDBOX: 'zerobounce,serper,pdl', SMTP_GREYLIST_SCHEDULE: '' },
    deps: (base) => withFastProviders({ ...base, search: createSearchProvider(base.config, FAST_TUNING) }),
  });
  origin = `http://127.0.0.1:${await serve()}`;
  browser = await launchChromium();
  ({ context, page, consoleProblems } = await openDashboardPage(browser, { acceptDownloads: true }));
});

afterAll(async () => {
  await browser?.close();
  if (server?.listening) await stopServing();
  await h?.stop();
  await world?.stop();
});

const go = (hash: string) => page.goto(`${origin}/${hash}`);
const layout = async (name: string, p: Page = page) => expect(await checkLayout(p, `pipeline-${name}`), name).toEqual(CLEAN_LAYOUT);
/** The page's title, set once its heading is there. */
const titled = (title: string) => eventually(() => page.title(), (text) => text === title, { what: `the title "${title}"` });
const apiGet = async (path: string, ctx: BrowserContext = context) => (await ctx.request.get(`${origin}${path}`)).json();

describe('the sales pipeline, one rep from sign-up on', () => {
  const tag = `pipe${Date.now() % 100_000}`;
  let pipelineListId: string;
  let importedListId: string;
  let jobId: string;
  const importedCsv = () =>
    [
      'Contact,First Name,Last Name,Company,Phone,notes',
      `${valid},Vera,Valid,Acme,+14155550123,a`,
      `${nobody},Nick,Nobody,Acme,,b`,
      `good@${MAIL.catchAll},Gus,Good,Anything Inc,,c`,
      `bad@${MAIL.catchAll},Bea,Bad,Anything Inc,,d`,
    ].join('\n') + '\n';
  let valid: string;
  let nobody: string;

  it('signs up, refuses an empty list name next to the field, and fits a phone', { timeout: 120_000 }, async () => {
    await go('');
    await page.getByRole('button', { name: 'Create one' }).click();
    await page.getByLabel('Organization name').fill('Pipeline Co');
    await page.getByLabel('Email').fill(`pipe-${randomUUID()}@example.test`);
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    // Checked before sending, said under the field.
    expect(await page.locator('.field-error').textContent()).toBe('Needs at least 10 characters.');
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByTestId('org-name').filter({ hasText: 'Pipeline Co' }).waitFor();
    const me = await apiGet('/api/auth/me');
    await applyCredits(h!.orm.em.fork(), {
      organizationId: me.organization.id,
      delta: 1000,
      reason: 'operator_grant',
      idempotencyKey: `test:${randomUUID()}`,
    });
    await page.reload();
    expect(await page.getByTestId('balance').textContent()).toBe('1,000 credits');
    await titled('Lists · Lead Enrichment');
    // The new page's heading has the focus.
    await eventually(() => page.evaluate<string>('document.activeElement.tagName'), (tag) => tag === 'H1', { what: 'the focus on the heading' });

    await page.getByRole('button', { name: 'Create list' }).click();
    expect(await page.getByRole('form', { name: 'New list' }).locator('.field-error').textContent()).toBe('Is required.');
    await layout('lists');
  });

  it('scrapes a file of companies and syncs the finds into a list', { timeout: 180_000 }, async () => {
    const rows = companyRows(6, 2, world!.providers.serper, tag);
    await go('#/scrape');
    await page.getByLabel('CSV file').setInputFiles({ name: 'targets.csv', mimeType: 'text/csv', buffer: Buffer.from(rows.csv) });
    await page.getByLabel(/Job name/).fill('Pipeline targets');
    await page.getByRole('button', { name: 'Start scrape' }).click();
    await page.getByRole('heading', { name: 'Pipeline targets' }).waitFor();
    await titled('Pipeline targets · Lead Enrichment');
    await page.getByTestId('scrape-status').filter({ hasText: 'completed' }).waitFor({ timeout: 120_000 });
    await layout('scrape-job');
    await page.getByRole('button', { name: 'Sync finds into a new list' }).click();
    await page.getByRole('link', { name: 'Open the list' }).click();
    await page.getByRole('heading', { name: /Pipeline targets.*3 leads/ }).waitFor();
    pipelineListId = page.url().split('#/lists/')[1]!;
  });

  it('finds the missing emails after showing the most it can cost and asking', { timeout: 180_000 }, async () => {
    for (const i of [2, 4, 6])
      world!.providers.pdl.fixtures.people.set(`https://www.linkedin.com/in/${tag}-person-${i}`, {
        ...{ first_name: personOf(i).firstName, last_name: personOf(i).lastName },
        work_email: world!.mailbox(MAIL.company),
      });
    const card = page.getByTestId('find-missing');
    expect(await card.textContent()).toContain('At most 3 credits');
    await card.getByRole('button', { name: 'Find missing emails' }).click();
    const confirm = card.getByTestId('confirm-spend');
    expect(await confirm.textContent()).toContain('At most 3 credits to look for the work email of 3 leads');
    // Cancel: nothing starts.
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect((await apiGet(`/api/enrichment/bulk?listId=${pipelineListId}`)).total).toBe(0);
    await card.getByRole('button', { name: 'Find missing emails' }).click();
    await card.getByRole('button', { name: 'Confirm and pay At most 3 credits' }).click();
    await page.getByTestId('find-missing-status').filter({ hasText: 'Done: 3 emails found for 3 credits' }).waitFor({ timeout: 120_000 });
    await page.getByTestId('balance').filter({ hasText: '997 credits' }).waitFor();
    await page.locator('table.leads tbody tr').filter({ hasText: `@${MAIL.company}` }).first().waitFor();
    await layout('list-enriched');
  });

  it('verifies the found emails and downloads the valid ones with the leads’ columns, named after the list', { timeout: 180_000 }, async () => {
    await go(`#/lists/${pipelineListId}`);
    await page.getByRole('link', { name: 'Verify emails' }).click();
    await page.getByRole('button', { name: 'Start verification' }).click();
    await page.getByTestId('stage').filter({ hasText: 'Completed' }).waitFor({ timeout: 120_000 });
    const legend = await page.getByTestId('breakdown').locator('li[data-result=Valid]').textContent();
    expect(legend).toContain('3');
    expect(legend).toContain('100%');
    const href = await page.getByTestId('downloads').getByRole('link', { name: 'Valid', exact: true }).getAttribute('href');
    const res = await context.request.get(`${origin}${href}`);
    expect(res.headers()['content-disposition']).toContain('Pipeline targets');
    const lines = (await res.text()).trim().split('\n');
    expect(lines[0]).toContain('first_name,last_name,company,title,network_url,phone');
    expect(lines).toHaveLength(4);
  });

  it('imports a file whose email column is mapped by hand, refusing a mapping of nothing', { timeout: 120_000 }, async () => {
    valid = world!.mailbox(MAIL.company);
    nobody = world!.nobody(MAIL.company);
    await go('#/lists');
    await page.getByLabel('New list name').fill('Imported prospects');
    await page.getByRole('button', { name: 'Create list' }).click();
    await page.getByRole('heading', { name: /Imported prospects/ }).waitFor();
    importedListId = page.url().split('#/lists/')[1]!;
    await page.getByText('Import leads from a CSV').click();
    await page.getByTestId('import-file').setInputFiles({ name: 'prospects.csv', mimeType: 'text/csv', buffer: Buffer.from(importedCsv()) });
    await page.getByTestId('column-mapping').waitFor();
    const mapping = page.getByTestId('column-mapping').locator('select');
    expect(await Promise.all((await mapping.all()).map((s) => s.inputValue()))).toEqual(['', 'firstName', 'lastName', 'company', 'phone', '']);
    // Nothing mapped: blocked, with the reason.
    for (const select of await mapping.all()) await select.selectOption('');
    await page.getByTestId('nothing-mapped').waitFor();
    expect(await page.getByRole('button', { name: 'Import prospects.csv' }).isDisabled()).toBe(true);
    await page.getByLabel('Lead field for column Contact').selectOption('email');
    await page.getByLabel('Lead field for column First Name').selectOption('firstName');
    await page.getByLabel('Lead field for column Last Name').selectOption('lastName');
    await page.getByLabel('Lead field for column Company').selectOption('company');
    await page.getByLabel('Lead field for column Phone').selectOption('phone');
    await page.getByRole('button', { name: 'Import prospects.csv' }).click();
    expect(await page.getByTestId('import-report').getByRole('status').textContent()).toMatch(/^Imported 4 leads; 0 rows refused/);
    const vera = page.locator('table.leads tbody tr').filter({ hasText: 'Vera Valid' });
    expect(await vera.textContent()).toContain(valid);
    await layout('list-imported');
  });

  it('verifies with a paid fill only after the total is confirmed, and shows one final breakdown everywhere', { timeout: 180_000 }, async () => {
    world!.providers.zerobounce.fixtures.verdicts.set(`good@${MAIL.catchAll}`, { status: 'valid' });
    world!.providers.zerobounce.fixtures.verdicts.set(`bad@${MAIL.catchAll}`, { status: 'invalid' });
    await page.getByRole('link', { name: 'Verify emails' }).click();
    await page.getByLabel(/then pay to fill the gaps/).check();
    await page.getByRole('button', { name: 'Start verification' }).click();
    const decision = page.getByTestId('decision');
    await decision.waitFor({ timeout: 120_000 });
    jobId = page.url().split('#/verification/')[1]!;
    await layout('verification-decision');
    await decision.getByRole('button', { name: /Verify the 2 catch-all/ }).click();
    expect(await decision.getByTestId('confirm-spend').textContent()).toContain('$0.001 to verify 2 addresses with the provider');
    // Nothing is bought until the confirmation.
    expect((await apiGet(`/api/verification/jobs/${jobId}`)).verificationStage).toBe('awaiting_decision');
    await decision.getByRole('button', { name: 'Confirm and pay $0.001' }).click();
    await page.getByTestId('stage').filter({ hasText: 'Completed' }).waitFor({ timeout: 120_000 });

    const breakdown = page.getByTestId('breakdown');
    const legend = async (result: string) => (await breakdown.locator(`li[data-result="${result}"]`).textContent())!.replace(/\s+/g, ' ');
    await eventually(() => legend('Valid'), (text) => text.includes('2') && text.includes('50%'), { what: 'two valid of four' });
    expect(await legend('Invalid')).toMatch(/Invalid\s?2\s?50%/);
    expect(await legend('Catch-All')).toMatch(/Catch-All\s?0\s?0%/);
    expect(await breakdown.locator('svg.breakdown-bar rect').count()).toBe(5);
    expect(await page.getByTestId('coverage').textContent()).toContain('100%');
    await titled('Verification of Imported prospects · Lead Enrichment');

    // The ready-made downloads carry the lead's columns; "as filtered" follows the filter on screen.
    const downloads = page.getByTestId('downloads');
    expect(await downloads.getByRole('link', { name: 'Valid + Catch-All' }).getAttribute('href')).toBe(
      `/api/verification/jobs/${jobId}/results/download?result=Valid%2CCatch-All&columns=lead`,
    );
    await page.getByRole('combobox', { name: 'Show' }).selectOption('Invalid');
    expect(await page.getByTestId('download-filtered').getAttribute('href')).toBe(
      `/api/verification/jobs/${jobId}/results/download?result=Invalid&columns=lead`,
    );
    await layout('verification-completed');

    await go('#/verification');
    const row = page.getByTestId('verification-jobs').locator('tbody tr').filter({ hasText: 'Imported prospects' });
    expect(await row.getByTestId('breakdown-cell').textContent()).toContain('2 valid (50%)');
    await layout('verification-jobs');
    await go(`#/lists/${importedListId}`);
    const latest = page.getByTestId('latest-verification');
    expect(await latest.textContent()).toContain('Completed');
    expect(await latest.locator('li[data-result="Valid"]').textContent()).toContain('50%');
    // The phone in the locale's way, the lead's email verified.
    const vera = page.locator('table.leads tbody tr').filter({ hasText: 'Vera Valid' });
    expect(await vera.locator('.status').textContent()).toBe('Valid');
  });

  it('downloads what the filter shows, with the leads’ names and companies and the phones as they are', { timeout: 60_000 }, async () => {
    const csv = await (await context.request.get(`${origin}/api/verification/jobs/${jobId}/results/download?result=Valid&columns=lead`)).text();
    const lines = csv.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(csv).toContain('Vera,Valid');
    expect(csv).toContain('+14155550123');
    expect(csv).not.toContain("'+1");
    const exported = page.getByTestId('export');
    expect(await exported.getAttribute('href')).toBe(`/api/lists/${importedListId}/leads/export`);
    const [download] = await Promise.all([page.waitForEvent('download'), exported.click()]);
    expect(download.suggestedFilename()).toBe('Imported prospects.csv');
  });

  it('re-imports the same file: every lead is a duplicate, skipped and reported', { timeout: 60_000 }, async () => {
    await go(`#/lists/${importedListId}`);
    await page.getByText('Import leads from a CSV').click();
    await page.getByTestId('import-file').setInputFiles({ name: 'prospects.csv', mimeType: 'text/csv', buffer: Buffer.from(importedCsv()) });
    await page.getByLabel('Lead field for column Contact').selectOption('email');
    await page.getByRole('button', { name: 'Import prospects.csv' }).click();
    expect(await page.getByTestId('import-report').getByRole('status').textContent()).toBe('Imported 0 leads; 0 rows refused; 4 duplicates skipped.');
    expect(await page.getByTestId('duplicates').textContent()).toContain('rows 1, 2, 3, 4');
    await page.getByRole('heading', { name: /Imported prospects.*4 leads/ }).waitFor();
  });

  it('a paid verification method shows its most and starts nothing until confirmed', { timeout: 60_000 }, async () => {
    const before = (await apiGet(`/api/verification/jobs?listId=${importedListId}`)).total;
    await go(`#/verification?list=${importedListId}`);
    await page.getByLabel(/Provider only/).check();
    await page.getByRole('button', { name: 'Start verification' }).click();
    const confirm = page.getByTestId('confirm-spend');
    expect(await confirm.textContent()).toContain('At most $0.002 to verify the addresses of 4 leads with the provider');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect((await apiGet(`/api/verification/jobs?listId=${importedListId}`)).total).toBe(before);
    await layout('verification-start');
  });

  it('says when the service is lost, offers to retry, and reloads by itself when it is back', { timeout: 120_000 }, async () => {
    await go(`#/verification/${jobId}`);
    await page.getByTestId('results').waitFor();
    const port = Number(new URL(origin).port);
    await stopServing();
    // Anything that reads now fails: the bar says so, and the table that failed offers a retry.
    await page.getByRole('combobox', { name: 'Show' }).selectOption('Valid');
    const bar = page.getByTestId('connection-lost');
    await bar.waitFor();
    expect(await bar.textContent()).toMatch(/Connection lost — retrying\. Next try at/);
    await layout('connection-lost');
    await serve(port);
    await bar.waitFor({ state: 'detached', timeout: 60_000 });
    // Reloaded by itself: the filtered rows are there without a click.
    await eventually(
      () => page.getByTestId('results').locator('tbody tr').allTextContents(),
      (rows) => rows.length === 2 && rows.every((text) => text.includes('Valid')),
      { what: 'the valid results reloaded' },
    );
  });

  it('verifies one address in the box', { timeout: 60_000 }, async () => {
    await go('#/verification');
    const box = page.getByRole('form', { name: 'Verify one address' });
    await box.getByLabel('Email address').fill('not an address');
    await box.getByRole('button', { name: /Verify/ }).click();
    expect(await box.locator('.field-error').textContent()).toMatch(/not an email address/);
    await box.getByLabel('Email address').fill(world!.mailbox(MAIL.company));
    await box.getByRole('button', { name: /Verify/ }).click();
    expect(await page.getByTestId('single-check').locator('.status').textContent()).toBe('Valid');
  });

  it('uploads a file and verifies it in one go (a new list on the way)', { timeout: 120_000 }, async () => {
    await go('#/verification');
    const card = page.getByTestId('upload-verify');
    await card.getByTestId('import-file').setInputFiles({
      name: 'walk-in.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(`email,name\n${world!.mailbox(MAIL.other)},Walk In\n`),
    });
    await card.getByRole('button', { name: 'Upload walk-in.csv and verify' }).click();
    await page.getByRole('heading', { name: 'Verification of walk-in' }).waitFor();
    await page.getByTestId('stage').filter({ hasText: 'Completed' }).waitFor({ timeout: 120_000 });
    expect(await page.getByTestId('breakdown').locator('li[data-result="Valid"]').textContent()).toContain('100%');
  });

  it('finds an email from a name and a company domain', { timeout: 120_000 }, async () => {
    await go('#/enrichment');
    const box = page.getByTestId('find-email');
    await box.getByLabel('First name').fill('User');
    await box.getByLabel('Last name').fill('One');
    await box.getByLabel('Company domain').fill('not a domain');
    await box.getByRole('button', { name: 'Find' }).click();
    expect(await box.locator('.field-error').textContent()).toMatch(/not a domain/);
    await box.getByLabel('Company domain').fill(`https://www.${MAIL.company}/about`);
    await box.getByRole('button', { name: 'Find' }).click();
    await page.getByTestId('found-email').waitFor({ timeout: 60_000 });
    await layout('find-email');
  });

  it('shows the spend to date and the usage by month, with a month’s charges', { timeout: 60_000 }, async () => {
    await go('#/account');
    expect(await page.getByTestId('spend-to-date').textContent()).toContain('3 credits');
    await page.getByRole('link', { name: 'Usage by month' }).click();
    const usage = page.getByTestId('usage');
    await usage.waitFor();
    await usage.getByRole('button', { name: 'Charges' }).first().click();
    expect(await page.getByTestId('charges').textContent()).toContain('List enrichment');
    await layout('usage');
  });

  it('invites a teammate, who joins by the link, sees the lists and no keys', { timeout: 120_000 }, async () => {
    await go('#/settings/members');
    await page.getByRole('button', { name: 'Create an invite link' }).click();
    const link = (await page.getByTestId('invite-link').textContent())!;
    expect(link).toMatch(new RegExp(`^${origin}/#/join\\?token=`));
    await layout('members');
    const teammate = await browser!.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US' });
    teammate.setDefaultTimeout(60_000);
    try {
      const mate = await teammate.newPage();
      await mate.goto(link);
      await mate.getByRole('heading', { name: 'Join your team' }).waitFor();
      await mate.getByLabel('Email').fill(`mate-${randomUUID()}@example.test`);
      await mate.getByLabel('Password').fill('correct horse battery');
      await mate.getByRole('button', { name: 'Join' }).click();
      await mate.getByTestId('org-name').filter({ hasText: 'Pipeline Co' }).waitFor({ state: 'attached' });
      await mate.getByRole('link', { name: 'Imported prospects' }).waitFor();
      await mate.goto(`${origin}/#/settings`);
      await mate.getByTestId('member-settings').waitFor();
      expect(await mate.getByRole('form', { name: 'New API key' }).count()).toBe(0);
      expect((await teammate.request.get(`${origin}/api/api-keys`)).status()).toBe(403);
      await layout('member-settings', mate);
    } finally {
      await teammate.close();
    }
    await page.reload();
    await page.getByTestId('members').locator('tbody tr').nth(1).waitFor();
    expect(await page.getByTestId('members').locator('tbody tr').count()).toBe(2);
  });

  it('every other screen fits a phone and its tables fit a desktop, each with its own title', { timeout: 120_000 }, async () => {
    for (const [hash, title] of [
      ['#/scrape', 'Scrape: find profiles'],
      ['#/enrichment', 'Enrichment'],
      ['#/settings', 'Settings'],
      ['#/account', 'Account'],
    ] as const) {
      await go(hash);
      await page.getByRole('heading', { level: 1, name: title }).waitFor();
      await page.getByText(/^Loading/).first().waitFor({ state: 'detached' });
      await titled(`${title} · Lead Enrichment`);
      await layout(hash.slice(2));
    }
  });

  it('left no script error or refused resource in the console', () => {
    expect(consoleProblems).toEqual([]);
  });
});
