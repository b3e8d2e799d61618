/**
 * What the watched browser pages reported (test/helpers/browser.ts): CSP violations, uncaught
 * errors and console errors, kept here until the check after each test takes them. Apart from the
 * browser helper so that the per-file setup (test/setup-each-file.ts) can check them without
 * loading playwright in every file.
 */
import type { ConsoleMessage } from 'playwright-core';

export const problems: string[] = [];
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

export function onConsole(msg: ConsoleMessage): void {
  if (msg.type() !== 'error') return;
  const text = msg.text();
  if (!text.startsWith('CSP violation') && expectedHttpError(msg)) return;
  if (!text.startsWith('CSP violation') && allowed.some((re) => re.test(text))) return;
  problems.push(`console error: ${text} (${msg.location().url})`);
}

/** After each test: fails it with what the pages reported meanwhile, and forgets its allowances. */
export function failOnBrowserProblems(): void {
  allowed = [];
  const found = takeBrowserProblems();
  if (found.length > 0) {
    throw new Error(`the browser reported problems during this test:\n${found.join('\n')}`);
  }
}
