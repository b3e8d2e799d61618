/**
 * A real browser (Debian's chromium, driven by playwright-core) against the real server on a
 * loopback port. Without chromium, the browser tests are skipped locally with a note, and fail
 * in CI (where .ci/run installs it).
 *
 * Every page opened through `launchBrowser()` is watched: a Content-Security-Policy violation
 * (the `securitypolicyviolation` event), an uncaught script error, or a console error fails the
 * test it happened in (checked after each test of any file importing this helper). A console
 * error a test provokes on purpose (an answer with an error status) is named with
 * `allowConsoleError`.
 */
import { existsSync } from 'node:fs';

import {
  type Browser,
  type BrowserContext,
  chromium,
  type ConsoleMessage,
  type Page,
} from 'playwright-core';
import { afterEach } from 'vitest';

import type { Runtime } from '../../src/cli/runtime.js';

export const CHROMIUM = process.env.WATCHKEEPER_CHROMIUM ?? '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);

if (!HAVE_CHROMIUM && process.env.CI) {
  throw new Error(`browser tests need ${CHROMIUM} (apt-get install chromium); .ci/run installs it`);
}

// Reported through the console so that the same listener sees it; the prefix marks it as ours.
const REPORT_CSP = `document.addEventListener('securitypolicyviolation', function (e) {
  console.error('CSP violation: ' + e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') +
    ' in ' + (e.sourceFile || document.location.pathname) + ':' + e.lineNumber +
    (e.sample ? ' (' + e.sample + ')' : ''));
});`;

const problems: string[] = [];
let allowed: RegExp[] = [];

/** For the running test only: console errors matching `pattern` are expected, not failures. */
export function allowConsoleError(pattern: RegExp): void {
  allowed.push(pattern);
}

/** What the watched pages reported since the last check (and clears it). */
export function takeBrowserProblems(): string[] {
  return problems.splice(0);
}

// An error status the page asked for (a 422 for a bad field, the 404 page) is logged by chromium
// as a failed resource; only a missing file of the app itself (a script, a stylesheet) counts.
function expectedHttpError(msg: ConsoleMessage): boolean {
  if (!/^Failed to load resource: the server responded with a status of 4\d\d/.test(msg.text())) {
    return false;
  }
  try {
    return !new URL(msg.location().url).pathname.startsWith('/static/');
  } catch {
    return false;
  }
}

function onConsole(msg: ConsoleMessage): void {
  if (msg.type() !== 'error') return;
  const text = msg.text();
  if (!text.startsWith('CSP violation') && expectedHttpError(msg)) return;
  if (!text.startsWith('CSP violation') && allowed.some((re) => re.test(text))) return;
  problems.push(`console error: ${text} (${msg.location().url})`);
}

async function watch(context: BrowserContext): Promise<void> {
  await context.addInitScript({ content: REPORT_CSP });
  context.on('console', onConsole);
  context.on('weberror', (e) => problems.push(`uncaught error: ${e.error().message}`));
}

afterEach(() => {
  allowed = [];
  const found = takeBrowserProblems();
  if (found.length > 0) {
    throw new Error(`the browser reported problems during this test:\n${found.join('\n')}`);
  }
});

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
  for (let i = 0; i < 600; i += 1) {
    const id = rt.feed.liveSessions()[0];
    if (id) return id;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no live session for "${prompt}" within 30 s`);
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
