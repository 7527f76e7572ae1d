import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { type ServedApp, serveApp } from '../support/served-app.ts';

let h: Harness | undefined;
let app: ServedApp | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  h = await startHarness();
  app = await serveApp(h);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await h?.stop();
});

/** A page with generous waits: Swagger UI's bundle is large and other test files share the machine. */
async function newPage(): Promise<Page> {
  const page = await browser!.newPage();
  page.setDefaultTimeout(60_000);
  return page;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** `METHOD /path` of every operation the page's own fetch of /openapi.json lists, and `METHOD name` of every webhook. */
async function documentedOperations(page: Page): Promise<string[]> {
  const spec = await page.evaluate<{ paths: Record<string, Record<string, unknown>>; webhooks?: Record<string, Record<string, unknown>> }>(
    `fetch('/openapi.json').then((res) => res.json())`,
  );
  return [...Object.entries(spec.paths), ...Object.entries(spec.webhooks ?? {})].flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => HTTP_METHODS.includes(key))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

/** `METHOD /path` of every operation block Swagger UI rendered (DOM reads as expressions: no DOM types in this project). */
const renderedOperations = (page: Page) =>
  page.evaluate<string[]>(`[...document.querySelectorAll('.opblock')].map((block) =>
    block.querySelector('.opblock-summary-method').textContent.trim() + ' ' + block.querySelector('.opblock-summary-path').getAttribute('data-path'))`);

describe('/docs in Chromium', () => {
  it('renders an operation block for every operation of /openapi.json, loading nothing from outside the app', { timeout: 120_000 }, async () => {
    const page = await newPage();
    const requested: string[] = [];
    const scriptErrors: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('pageerror', (error) => scriptErrors.push(String(error)));

    await page.goto(`${app!.url}/docs`);
    const expected = await documentedOperations(page);
    expect(expected.length).toBeGreaterThan(20);
    // Swagger UI builds the blocks after fetching the document: wait for all of them, however long that takes here.
    await page.waitForFunction(`document.querySelectorAll('.opblock').length >= ${expected.length}`, undefined, { timeout: 60_000 });

    const rendered = await renderedOperations(page);
    expect([...rendered].sort()).toEqual([...expected].sort());
    expect(rendered).toEqual(
      expect.arrayContaining([
        'POST /api/auth/signup',
        'GET /api/auth/me',
        'POST /api/lists',
        'POST /api/lists/{listId}/leads',
        'POST /api/verification/jobs',
        'GET /api/verification/jobs/{jobId}/results',
        'POST /api/scrape/jobs',
      ]),
    );
    // The page's own link to the document, above Swagger UI (which shows one of its own).
    expect(await page.locator('body > p a[href="/openapi.json"]').count()).toBe(1);
    // No CDN: every asset, and the document itself, came from the app's own origin.
    expect(requested.filter((url) => !url.startsWith(`${app!.url}/`))).toEqual([]);
    expect(scriptErrors).toEqual([]);
  });

  it('opens an operation to show its request body and the "Try it out" button', { timeout: 120_000 }, async () => {
    const page = await newPage();
    await page.goto(`${app!.url}/docs`);
    const signup = page.locator('.opblock', { has: page.locator('.opblock-summary-path[data-path="/api/auth/signup"]') });
    await signup.locator('.opblock-summary').click();
    await signup.locator('.try-out__btn').waitFor();
    expect(await signup.locator('.opblock-body').textContent()).toContain('organizationName');
  });
});
