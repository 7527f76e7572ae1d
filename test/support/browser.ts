import { access } from 'node:fs/promises';
import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it): playwright-core never downloads a browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Headless Chromium with nothing of its own talking to the network (updates, sync, first-run pages). */
export async function launchChromium(): Promise<Browser> {
  await access(CHROMIUM_PATH).catch(() => {
    throw new Error(`${CHROMIUM_PATH} is missing: install Debian's chromium package (apt-get install chromium), as .ci/run does`);
  });
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}
