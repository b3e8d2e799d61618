/**
 * A real browser (Debian's chromium, driven by playwright-core) against the real server on a
 * loopback port. Without chromium, the browser tests are skipped locally with a note, and fail
 * in CI (where .ci/run installs it).
 */
import { existsSync } from 'node:fs';

import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = process.env.WATCHKEEPER_CHROMIUM ?? '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);

if (!HAVE_CHROMIUM && process.env.CI) {
  throw new Error(`browser tests need ${CHROMIUM} (apt-get install chromium); .ci/run installs it`);
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}
