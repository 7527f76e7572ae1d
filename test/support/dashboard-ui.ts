import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';

/** Where the suite leaves its screenshots for a person to look at (gitignored; CI keeps the folder). */
export const SCREENSHOTS_DIR = path.resolve('test-results', 'screenshots');

/**
 * Screenshots of the page as it is, at desktop width and at phone width, and the phone layout's check: nothing
 * wider than the screen (wide tables scroll inside their own box).
 */
export async function captureScreen(page: Page, name: string): Promise<{ phoneOverflow: number }> {
  await mkdir(SCREENSHOTS_DIR, { recursive: true });
  const desktop = page.viewportSize() ?? { width: 1280, height: 800 };
  await page.screenshot({ path: path.join(SCREENSHOTS_DIR, `${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await page.screenshot({ path: path.join(SCREENSHOTS_DIR, `${name}-390.png`), fullPage: true });
    const overflow = await page.evaluate<number>(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    return { phoneOverflow: overflow };
  } finally {
    await page.setViewportSize(desktop);
  }
}

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
