/**
 * A real browser (Debian's chromium-headless-shell, driven by playwright-core) against the real
 * server on a loopback port: Chromium's engine without the desktop browser around it, the build
 * playwright itself runs headless, at under half the CPU of `chromium --headless` for the same
 * tests. Without it, the browser tests are skipped locally with a note, and fail in CI (where
 * .ci/run installs it). WATCHKEEPER_CHROMIUM names another build (such as /usr/bin/chromium).
 *
 * Every page opened through `launchBrowser()` is watched: a Content-Security-Policy violation
 * (the `securitypolicyviolation` event), an uncaught script error, or a console error fails the
 * test it happened in (checked after each test of every file: test/setup-each-file.ts). A console
 * error a test provokes on purpose (an answer with an error status) is named with
 * `allowConsoleError`.
 */
import { existsSync } from 'node:fs';

import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';

import type { Runtime } from '../../src/cli/runtime.js';
import { onConsole, problems } from './browser-problems.js';
import { waitFor } from './wait.js';

export { allowConsoleError, takeBrowserProblems } from './browser-problems.js';

export const CHROMIUM = process.env.WATCHKEEPER_CHROMIUM ?? '/usr/bin/chromium-headless-shell';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);

if (!HAVE_CHROMIUM && process.env.CI) {
  throw new Error(
    `browser tests need ${CHROMIUM} (apt-get install chromium-headless-shell); .ci/run installs it`,
  );
}

// Reported through the console so that the same listener sees it; the prefix marks it as ours.
const REPORT_CSP = `document.addEventListener('securitypolicyviolation', function (e) {
  console.error('CSP violation: ' + e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') +
    ' in ' + (e.sourceFile || document.location.pathname) + ':' + e.lineNumber +
    (e.sample ? ' (' + e.sample + ')' : ''));
});`;

async function watch(context: BrowserContext): Promise<void> {
  await context.addInitScript({ content: REPORT_CSP });
  context.on('console', onConsole);
  context.on('weberror', (e) => problems.push(`uncaught error: ${e.error().message}`));
}

export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({
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
  // browser.newPage() opens its page through newContext(), so both are watched.
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const context = await newContext(options);
    // Waits end as soon as the page is there; the bound only catches a page that never is, and
    // a busy machine makes the page slower, not wrong.
    context.setDefaultTimeout(60_000);
    await watch(context);
    return context;
  };
  return browser;
}

/** Starts a manual run on `rt` and waits until its session is live; returns the session id. */
export async function startLiveSession(rt: Runtime, prompt: string): Promise<number> {
  rt.scheduler.trigger({ trigger: 'manual', startTier: 1, prompt, alert: null });
  return waitFor(`a live session for "${prompt}"`, () => rt.feed.liveSessions()[0]);
}

/**
 * Waits for the next scheduled refresh of a self-refreshing region (its `every Ns` trigger) and
 * says what became of it: `replaced` when the new copy is in place, `held back` when the page
 * cancelled it (it does while a row is edited, a menu is open or a selection is made). Waiting
 * for the refresh itself, not for a fixed time, means the assertions after it always see one.
 */
export async function nextScheduledRefresh(
  page: Page,
  id: string,
): Promise<'replaced' | 'held back'> {
  // Page code as text: this project's TypeScript has no DOM types.
  return page.evaluate(`new Promise((resolve) => {
    const id = ${JSON.stringify(id)};
    const old = document.getElementById(id);
    const finish = (how) => {
      clearInterval(timer);
      document.removeEventListener('htmx:beforeRequest', onRequest);
      resolve(how);
    };
    // Runs after the page's own listener (added first), so its decision is known here.
    const onRequest = (evt) => {
      const scheduled = !(evt.detail.requestConfig && evt.detail.requestConfig.triggeringEvent);
      if (evt.detail.elt && evt.detail.elt.id === id && scheduled && evt.defaultPrevented)
        finish('held back');
    };
    const timer = setInterval(() => {
      if (document.getElementById(id) !== old) finish('replaced');
    }, 50);
    document.addEventListener('htmx:beforeRequest', onRequest);
  })`);
}

/**
 * Waits until `expression` (page code as text) is true. Not page.waitForFunction: when its first
 * check fails it polls by evaluating the text inside the page, which the dashboard's CSP (no
 * eval) refuses; page.evaluate runs it through the browser's own protocol instead.
 */
export async function waitForPage(page: Page, expression: string): Promise<void> {
  await expect.poll(() => page.evaluate(expression)).toBe(true);
}
