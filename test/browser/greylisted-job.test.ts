import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDashboardBuilt } from '../../scripts/build-dashboard.ts';
import { launchChromium } from '../support/browser.ts';
import { CLEAN_LAYOUT, checkLayout, openDashboardPage } from '../support/dashboard-ui.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { type MailWorld, mailWorldEnv, startMailWorld } from '../support/mail-world/index.ts';
import { type ServedApp, serveApp } from '../support/served-app.ts';

// Issue #30, honest live state: a job whose mail servers greylist says when it tries again and can be finished now.
// grey.test greylists for an hour and the schedule waits 10 minutes, so only the button ends the job in time.

const TIME_ZONE = 'America/New_York';

let world: MailWorld | undefined;
let h: Harness | undefined;
let app: ServedApp | undefined;
let browser: Browser | undefined;
let context: BrowserContext;
let page: Page;
let consoleProblems: string[];

beforeAll(async () => {
  await ensureDashboardBuilt();
  world = await startMailWorld({
    domains: {
      'grey.test': {
        mx: [{ host: 'mx.grey.test', preference: 10, ip: '127.0.0.97', behaviour: { mailboxes: ['ann@grey.test'], greylistForMs: 3_600_000 } }],
      },
      'plain.test': {
        mx: [{ host: 'mx.plain.test', preference: 10, ip: '127.0.0.98', behaviour: { mailboxes: ['ok@plain.test'] } }],
      },
    },
  });
  h = await startHarness({ worker: true, env: { ...mailWorldEnv(world), SMTP_GREYLIST_SCHEDULE: '10m' } });
  app = await serveApp(h);
  browser = await launchChromium();
  // A time zone other than the machine's: the next try is shown in the user's local time.
  ({ context, page, consoleProblems } = await openDashboardPage(browser, { timezoneId: TIME_ZONE }));
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await h?.stop();
  await world?.stop();
});

/** A write of the test's own (setup other tests walk through the screens), with the session cookie and the app's Origin. */
async function apiPost(path: string, data?: unknown) {
  const res = await context.request.post(`${app!.url}${path}`, { data, headers: { Origin: app!.url } });
  expect(res.status(), await res.text()).toBeLessThan(300);
  return res.json();
}
const apiGet = async (path: string) => (await context.request.get(`${app!.url}${path}`)).json();

/** A running smtp_only job whose two grey.test addresses wait for their next try. */
async function deferredJob(): Promise<{ id: string; nextRetryAt: string }> {
  const list = await apiPost('/api/lists', { name: `Greylisted ${Date.now()}` });
  await apiPost(`/api/lists/${list.id}/leads`, {
    leads: ['ann@grey.test', 'bob@grey.test', 'ok@plain.test'].map((email) => ({ email })),
  });
  const job = await apiPost('/api/verification/jobs', { listId: list.id, verificationMethod: 'smtp_only' });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const now = await apiGet(`/api/verification/jobs/${job.id}`);
    if (now.deferredCount === 2 && now.nextRetryAt) return now;
    if (Date.now() > deadline) throw new Error(`job never deferred: ${JSON.stringify(now)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('a greylisted verification job', () => {
  it('shows the next try in local time and finishes now with the waiting addresses Unknown, after asking', { timeout: 180_000 }, async () => {
    await apiPost('/api/auth/signup', { email: `grey-${Date.now()}@example.test`, password: 'correct horse battery', organizationName: 'Grey' });
    const job = await deferredJob();
    await page.goto(`${app!.url}/#/verification/${job.id}`);

    const notice = page.getByTestId('deferred');
    const at = new Intl.DateTimeFormat('en-US', { timeStyle: 'medium', timeZone: TIME_ZONE }).format(new Date(job.nextRetryAt));
    await expect
      .poll(() => notice.locator('p').first().textContent())
      .toBe(`2 addresses wait for their mail servers (greylisting); next try at ${at}.`);
    expect(await notice.locator('time').getAttribute('datetime')).toBe(job.nextRetryAt);
    expect(await checkLayout(page, 'verification-greylisted'), 'verification-greylisted').toEqual(CLEAN_LAYOUT);

    // The first press asks; only the second finishes.
    await notice.getByRole('button', { name: 'Finish now — mark them Unknown' }).click();
    expect((await apiGet(`/api/verification/jobs/${job.id}`)).deferredCount).toBe(2);
    await notice.getByRole('button', { name: 'Mark 2 addresses Unknown now' }).click();

    await expect.poll(() => page.getByTestId('stage').textContent(), { timeout: 30_000 }).toBe('Completed');
    await expect.poll(() => notice.count()).toBe(0);
    expect(await apiGet(`/api/verification/jobs/${job.id}`)).toMatchObject({ deferredCount: 0, nextRetryAt: null, smtpUnknownCount: 2 });
  });

  it('says in words why a job can no longer be finished', { timeout: 120_000 }, async () => {
    const job = await deferredJob();
    // The page stays as loaded while the job is finished elsewhere: its live stream never answers.
    await page.route('**/events', () => undefined);
    await page.goto(`${app!.url}/#/verification/${job.id}`);
    const notice = page.getByTestId('deferred');
    await notice.getByRole('button', { name: 'Finish now — mark them Unknown' }).waitFor();
    await apiPost(`/api/verification/jobs/${job.id}/finish-deferred`);
    const deadline = Date.now() + 30_000;
    while ((await apiGet(`/api/verification/jobs/${job.id}`)).verificationStage !== 'completed') {
      if (Date.now() > deadline) throw new Error('the job never completed');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    await notice.getByRole('button', { name: 'Finish now — mark them Unknown' }).click();
    await notice.getByRole('button', { name: 'Mark 2 addresses Unknown now' }).click();
    await expect
      .poll(() => notice.getByRole('alert').textContent())
      .toBe('Waiting addresses can be finished only while the job checks mail servers (its SMTP stage) (it is completed now)');
  });

  it('left no script error or refused resource in the console', () => {
    expect(consoleProblems.filter((p) => !p.includes('/events'))).toEqual([]);
  });
});
