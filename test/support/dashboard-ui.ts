import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';

/** Where the suite leaves its screenshots for a person to look at (gitignored; CI keeps the folder). */
export const SCREENSHOTS_DIR = path.resolve('test-results', 'screenshots');

/** Console messages a healthy page never logs: script errors and Content-Security-Policy refusals. */
export function watchConsole(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${String(error)}`));
  page.on('console', (message) => {
    const text = message.text();
    // A refused API call (4xx) is logged by Chromium as a failed resource: the page shows it in words instead.
    if (message.type() === 'error' && !text.startsWith('Failed to load resource')) problems.push(text);
  });
  return problems;
}

/** What a screen's layout check measured: how far the page scrolls sideways at 390 px, tables wider than their box and headers out of line at 1280 px. */
export interface LayoutCheck {
  phoneOverflow: number;
  /** `testid or index: table width > box width` for each table that would need its own scroll bar on a desktop. */
  wideTables: string[];
  /**
   * At 390 px, what a phone would hide: `menu: <section>` for a menu link past the screen's edge, `<testid or
   * index>: width > box` for a table drawn as cards (all but the small grids of counts and a file's preview) that
   * still scrolls inside its box.
   */
  phoneClipped: string[];
  /** `testid or index: header` for each column header at 1280 px aligned otherwise than its column's first cell. */
  misalignedHeaders: string[];
}

/** A screen with nothing to report: what every browser test expects of `checkLayout`. */
export const CLEAN_LAYOUT: LayoutCheck = { phoneOverflow: 0, wideTables: [], phoneClipped: [], misalignedHeaders: [] };

/**
 * The layout assertions of a screen, with its screenshots: at 1280 px every table fits its box (element widths,
 * not pixels of a screenshot) and each column's header is aligned like its cells; at 390 px the page does not scroll sideways and hides no menu link or table column.
 */
export async function checkLayout(page: Page, name: string): Promise<LayoutCheck> {
  await mkdir(SCREENSHOTS_DIR, { recursive: true });
  const desktop = page.viewportSize() ?? { width: 1280, height: 800 };
  await page.setViewportSize({ width: 1280, height: 800 });
  try {
    await page.screenshot({ path: path.join(SCREENSHOTS_DIR, `${name}-1280.png`), fullPage: true });
    // Strings, not functions: this file is compiled without the DOM library.
    const wideTables = await page.evaluate<string[]>(`
      [...document.querySelectorAll('.table-wrap')].flatMap((wrap, i) => {
        const table = wrap.querySelector('table');
        if (!table || table.offsetParent === null) return [];
        const inner = table.getBoundingClientRect().width;
        const box = wrap.clientWidth;
        return inner > box + 1 ? [(table.dataset.testid || 'table ' + (i + 1)) + ': ' + Math.round(inner) + ' > ' + box] : [];
      })`);
    // Numbers sit right, words left: a header over a column of numbers is aligned like them (start = left here).
    const misalignedHeaders = await page.evaluate<string[]>(`
      [...document.querySelectorAll('.table-wrap table')].flatMap((table, t) => {
        const heads = [...table.querySelectorAll('thead tr:first-child th')];
        const cells = [...(table.querySelector('tbody tr')?.children ?? [])];
        if (table.offsetParent === null || cells.length !== heads.length) return [];
        const side = (el) => ({ start: 'left', end: 'right' })[getComputedStyle(el).textAlign] ?? getComputedStyle(el).textAlign;
        return heads.flatMap((th, i) =>
          side(th) === side(cells[i]) ? [] : [(table.dataset.testid || 'table ' + (t + 1)) + ': ' + th.textContent]);
      })`);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: path.join(SCREENSHOTS_DIR, `${name}-390.png`), fullPage: true });
    const phoneOverflow = await page.evaluate<number>('document.scrollingElement.scrollWidth - window.innerWidth');
    const phoneClipped = await page.evaluate<string[]>(`[
      ...[...document.querySelectorAll('.top nav a')]
        .filter((link) => link.getBoundingClientRect().right > window.innerWidth + 1)
        .map((link) => 'menu: ' + link.textContent),
      ...[...document.querySelectorAll('.table-wrap.cards')].flatMap((wrap, i) =>
        wrap.offsetParent !== null && wrap.scrollWidth > wrap.clientWidth + 1
          ? [(wrap.querySelector('table')?.dataset.testid || 'table ' + (i + 1)) + ': ' + wrap.scrollWidth + ' > ' + wrap.clientWidth]
          : []),
    ]`);
    return { phoneOverflow: Math.max(0, phoneOverflow), wideTables, phoneClipped, misalignedHeaders };
  } finally {
    await page.setViewportSize(desktop);
  }
}

/**
 * A desktop-sized page in one locale (the figures the tests read are en-US), with a generous timeout (other test
 * files share the machine's two cores) and its console watched.
 */
export async function openDashboardPage(browser: Browser, options: BrowserContextOptions = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US', ...options });
  context.setDefaultTimeout(60_000);
  const page = await context.newPage();
  return { context, page, consoleProblems: watchConsole(page) };
}
