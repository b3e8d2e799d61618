/**
 * The dashboard as a daily tool, in a real browser: the memories table at 1,100 px and on a
 * phone, the light theme, the keyboard, the live session page bringing in events, status and the
 * final response without a reload, the 404 page, and the CSP watch every browser test runs under.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createDashboard } from '../../src/cli/dashboard.js';
import { createRuntime, type Runtime } from '../../src/cli/runtime.js';
import { systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import {
  type SimBlock,
  type SimulatedModel,
  startSimulatedModel,
} from '../../src/sim/messages-api.js';
import { startWebServer, type WebServer } from '../../src/web/server.js';
import {
  HAVE_CHROMIUM,
  launchBrowser,
  startLiveSession,
  takeBrowserProblems,
} from '../helpers/browser.js';
import { seedMemory } from '../helpers/db.js';
import { TOKEN } from '../helpers/web.js';

let browser: Browser;
let rt: Runtime;
let web: WebServer;
let sim: SimulatedModel;
let dataDir: string;
let cookies: Awaited<ReturnType<BrowserContext['cookies']>> = [];
const gates: { release: () => void; wait: Promise<void> }[] = [];

const text = (t: string): SimBlock => ({ type: 'text', text: t });
const url = (path: string) => new URL(path, web.url).toString();

function gate() {
  let release = () => {};
  const wait = new Promise<void>((r) => (release = r));
  return { release, wait };
}

const LONG =
  'After a restart jellyfin answers /health only once the media library scan has finished, which takes about ninety seconds on the NAS; until then the reverse proxy returns 502 and the uptime check fires.';

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-browser-ux-'));
  sim = await startSimulatedModel(async (r) => {
    if (!Array.isArray(r.body.tools) || r.body.tools.length === 0) return [text('ok')];
    if (r.turn === 0) {
      await gates[0]?.wait;
      return [
        text('Checking jellyfin.\n[EVENT:warning:jellyfin] /health took 2.9s (threshold 1s)'),
        { type: 'tool_use', name: 'Bash', input: { command: 'echo checked', description: 'x' } },
      ];
    }
    await gates[1]?.wait;
    return [
      text(
        'jellyfin is slow but up.\n[EVENT:info:jellyfin] still answering\n[MEMORY:timing:jellyfin] Takes 60s to start after a restart',
      ),
    ];
  });
  const config = loadConfig({
    WATCHKEEPER_DATA_DIR: dataDir,
    // Words only: the pages are under test here; ranking by meaning is tested in test/web/search.test.ts.
    WATCHKEEPER_EMBEDDINGS: 'off',
    WATCHKEEPER_AUTH_TOKEN: TOKEN,
    WATCHKEEPER_PORT: '0',
    WATCHKEEPER_SCHEDULE: 'off',
    WATCHKEEPER_SESSION_TIMEOUT: '60s',
    WATCHKEEPER_TZ: 'UTC',
  });
  rt = createRuntime({
    config,
    clock: systemClock,
    log: silentLogger,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: mkdtempSync(join(tmpdir(), 'watchkeeper-home-')),
    },
    simulated: true,
    childEnvOverrides: { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: 'simulated' },
  });
  web = await startWebServer(createDashboard(rt, { clock: systemClock, demo: false }), config.web);
  browser = await launchBrowser();
  const page = await browser.newPage();
  await page.goto(url('/login'));
  await page.fill('input[name=token]', TOKEN);
  await page.click('button[type=submit]');
  await page.waitForURL(url('/'));
  cookies = await page.context().cookies();
  await page.close();
  seedMemory(rt, { service: 'jellyfin', category: 'timing', observation: LONG });
  for (let i = 0; i < 6; i += 1) {
    seedMemory(rt, {
      service: `very-long-service-name-${i}`,
      category: 'dependency',
      observation: `Needs the VPN tunnel ${i} before it can reach the database`,
    });
  }
});

afterAll(async () => {
  if (!HAVE_CHROMIUM) return;
  for (const g of gates) g.release();
  await browser?.close();
  await rt?.scheduler.shutdown();
  await web?.close();
  await sim?.close();
  await rt?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A signed-in page of this width, in a context of its own (so emulation does not leak). */
async function signedIn(
  width: number,
  opts: { colorScheme?: 'light' | 'dark'; height?: number } = {},
): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width, height: opts.height ?? 860 },
    colorScheme: opts.colorScheme ?? 'dark',
  });
  await context.addCookies(cookies);
  return context.newPage();
}

const row = (page: Page, observation: string) =>
  page.locator('#memory-rows tr', { hasText: observation });

describe.skipIf(!HAVE_CHROMIUM)('the dashboard as a daily tool', () => {
  it('reports a CSP violation when one happens (the watch every browser test runs under)', async () => {
    const page = await signedIn(1360);
    await page.goto(url('/memories'));
    // An inline style attribute, as a careless template or script would add.
    await page.evaluate(
      "document.body.insertAdjacentHTML('beforeend', '<div style=\"color: red\">x</div>')",
    );
    await expect.poll(() => takeBrowserProblems().join('\n')).toMatch(/CSP violation: style-src/);
    await page.context().close();
  });

  it('keeps the memories table usable at 1,100 px: a readable observation, actions in a menu', async () => {
    const page = await signedIn(1100);
    await page.goto(url('/memories'));
    const long = row(page, 'media library scan');
    const cell = long.locator('td.observation');
    const box = (await cell.boundingBox())!;
    expect(box.width).toBeGreaterThanOrEqual(250);
    // The table fits the page: nothing hidden off to the right, no sideways scrolling.
    const right = await page.evaluate(`(() => {
      const main = document.querySelector('main');
      const content = main.getBoundingClientRect().right - parseFloat(getComputedStyle(main).paddingRight);
      return Math.round(document.querySelector('#memory-table table').getBoundingClientRect().right - content);
    })()`);
    expect(right).toBeLessThanOrEqual(0);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1100);
    // The timestamp is on one line.
    const id = (await long.getAttribute('id'))!;
    const lines = await page.evaluate(`(() => {
      const range = document.createRange();
      range.selectNodeContents(document.querySelector('#${id} td.when'));
      return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    })()`);
    expect(lines).toBe(1);
    // A category is never cut in two ("remedia / tion"); a long service name may break at its
    // hyphens.
    const cut = await page.evaluate(`(() => [...document.querySelectorAll(
      '#memory-table td:nth-child(3)')].filter((td) => {
        const range = document.createRange();
        range.selectNodeContents(td);
        return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1;
      }).map((td) => td.textContent))()`);
    expect(cut).toEqual([]);
    expect(await long.locator('td.when').textContent()).toMatch(
      /^\d{4}-\d\d-\d\d\u00a0\d\d:\d\d:\d\d\u00a0UTC$/,
    );
    // Edit is at hand; the rest is one click away, in a menu that closes after the action.
    const menu = long.locator('details.row-menu');
    expect(await long.locator('td.actions > button').allTextContents()).toEqual(['Edit']);
    expect(await menu.locator('button', { hasText: 'Pin' }).isVisible()).toBe(false);
    await menu.locator('summary').click();
    await menu.locator('button', { hasText: 'Pin' }).click();
    await long.locator('.badge.pinned').waitFor();
    expect(await long.locator('details.row-menu[open]').count()).toBe(0);
    await page.context().close();
  });

  it('opens a memory history titled with the memory, and closes it', async () => {
    const page = await signedIn(1100);
    await page.goto(url('/memories'));
    const long = row(page, 'media library scan');
    await long.locator('details.row-menu summary').click();
    await long.locator('button', { hasText: 'History' }).click();
    const title = page.locator('#history-panel .history-title');
    await title.waitFor();
    expect(await title.textContent()).toContain('media library scan');
    expect(await page.locator('#history-panel svg.spark .axis').count()).toBe(2);
    await page.click('#history-panel button.close');
    await expect.poll(() => page.locator('#history-panel > *').count()).toBe(0);
    await page.context().close();
  });

  it('cancels an inline edit with Esc, and / jumps to search except while typing', async () => {
    const page = await signedIn(1360);
    await page.goto(url('/memories'));
    const first = row(page, 'VPN tunnel 0');
    const id = (await first.getAttribute('id'))!;
    await first.locator('button', { hasText: 'Edit' }).click();
    const editor = page.locator(`#${id} textarea[name=observation]`);
    await editor.fill('Needs the VPN / tunnel');
    expect(await editor.inputValue()).toBe('Needs the VPN / tunnel'); // "/" typed, not a jump
    await page.keyboard.press('Escape');
    await page.locator(`#${id}:not(.editing)`).waitFor();
    expect(await page.locator(`#${id} td.observation`).textContent()).toContain(
      'Needs the VPN tunnel 0',
    );
    expect(rt.stores.memories.get(Number(id.slice('memory-'.length)))!.observation).toBe(
      'Needs the VPN tunnel 0 before it can reach the database',
    );
    await page.locator('h1').click();
    await page.keyboard.press('/');
    expect(await page.evaluate('document.activeElement.id')).toBe('memory-search');
    await page.context().close();
  });

  it('collapses the sidebar on a phone and stacks the rows of wide tables instead of scrolling the page', async () => {
    const page = await signedIn(390, { height: 800 });
    await page.goto(url('/memories'));
    const nav = page.locator('#site-nav');
    expect(await nav.isVisible()).toBe(false);
    await page.click('#nav-toggle');
    expect(await nav.isVisible()).toBe(true);
    expect(await page.getAttribute('#nav-toggle', 'aria-expanded')).toBe('true');
    await page.click('#nav-toggle');
    expect(await nav.isVisible()).toBe(false);
    // The page itself does not scroll sideways; the table's rows stack, each cell labelled.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    const table = await page.evaluate(`(() => {
      const t = document.querySelector('#memory-table table');
      const cell = t.querySelector('tbody tr td.observation');
      return { scroll: t.scrollWidth, client: t.clientWidth, label: cell.getAttribute('data-label') };
    })()`);
    const { scroll, client, label } = table as { scroll: number; client: number; label: string };
    expect(scroll).toBeLessThanOrEqual(client);
    expect(label).toBeTruthy();
    // The row menu opens inside the row, not off screen.
    const long = row(page, 'media library scan');
    await long.locator('details.row-menu summary').click();
    expect(await long.locator('button', { hasText: 'Delete' }).isVisible()).toBe(true);
    await page.context().close();
  });

  it('follows prefers-color-scheme: light colours for a light system, dark otherwise', async () => {
    const colours = async (scheme: 'light' | 'dark') => {
      const page = await signedIn(1100, { colorScheme: scheme });
      await page.goto(url('/memories'));
      const c = await page.evaluate(`(() => {
        const s = (sel, prop) => getComputedStyle(document.querySelector(sel))[prop];
        return {
          body: s('body', 'backgroundColor'),
          text: s('body', 'color'),
          panel: s('table', 'backgroundColor'),
          control: s('#memory-search', 'backgroundColor'),
        };
      })()`);
      await page.context().close();
      return c;
    };
    expect(await colours('light')).toEqual({
      body: 'rgb(246, 248, 250)',
      text: 'rgb(31, 35, 40)',
      panel: 'rgb(255, 255, 255)',
      control: 'rgb(246, 248, 250)',
    });
    expect(await colours('dark')).toEqual({
      body: 'rgb(15, 20, 25)',
      text: 'rgb(215, 222, 230)',
      panel: 'rgb(23, 29, 36)',
      control: 'rgb(15, 20, 25)',
    });
  });

  it('brings events, status and the final response onto a live session page without a reload', async () => {
    gates.push(gate(), gate());
    const sessionId = await startLiveSession(rt, 'check jellyfin');
    const page = await signedIn(1360);
    await page.goto(url(`/sessions/${sessionId}`));
    await page.evaluate('window.notReloaded = true');
    const live = page.locator('#session-live');
    expect(await live.textContent()).toContain('No events.');
    expect(await live.textContent()).toContain('Not yet: the session is still running.');

    gates[0]!.release(); // the first turn: an event
    await live.locator('td', { hasText: '/health took 2.9s' }).waitFor();
    expect(await page.locator('#session-status').textContent()).toBe('running');

    gates[1]!.release(); // the last turn: the final response, and the end
    await page.locator('#session-status', { hasText: 'completed' }).waitFor();
    await live.locator('.response', { hasText: 'jellyfin is slow but up' }).waitFor();
    await live.locator('td', { hasText: 'still answering' }).waitFor();
    await live.locator('td', { hasText: 'Takes 60s to start after a restart' }).first().waitFor();
    expect(await live.locator('dl.meta dd').first().textContent()).toContain('completed');
    // Each marker stays on a line of its own in the final response.
    expect(await live.locator('.response br').count()).toBeGreaterThanOrEqual(2);
    expect(await page.evaluate('window.notReloaded')).toBe(true);
    await page.context().close();
  });

  it('keeps the system prompt open while a live session page refreshes', async () => {
    gates.splice(0, gates.length, gate(), gate());
    const sessionId = await startLiveSession(rt, 'check jellyfin again');
    const page = await signedIn(1360);
    await page.goto(url(`/sessions/${sessionId}`));
    const live = page.locator('#session-live');
    const prompt = page.locator('#system-prompt');
    await prompt.locator('summary').click();
    expect(await prompt.getAttribute('open')).not.toBeNull();
    // Marks the element the page has now: a refresh replaces it.
    await prompt.evaluate((d) => d.setAttribute('data-before', ''));

    gates[0]!.release(); // an event: the region is fetched again
    await live.locator('td', { hasText: '/health took 2.9s' }).waitFor();
    expect(await page.locator('#system-prompt[data-before]').count()).toBe(0);
    expect(await prompt.getAttribute('open')).not.toBeNull();

    gates[1]!.release(); // the end, and the last refresh
    await page.locator('#session-status', { hasText: 'completed' }).waitFor();
    await live.locator('td', { hasText: 'still answering' }).waitFor();
    expect(await prompt.getAttribute('open')).not.toBeNull();
    await page.context().close();
  });

  it('opens every page of the navigation, on a phone and in the light theme, without a console problem', async () => {
    const page = await signedIn(390, { colorScheme: 'light', height: 800 });
    await page.goto(url('/'));
    const paths = (await page.evaluate(
      "[...document.querySelectorAll('#site-nav a')].map((a) => a.getAttribute('href'))",
    )) as string[];
    expect(paths.length).toBeGreaterThanOrEqual(9);
    for (const path of paths) {
      const res = await page.goto(url(path));
      expect([path, res!.status()]).toEqual([path, 200]);
      await page.waitForLoadState('networkidle');
      // The page scrolls down, never sideways.
      expect([path, await page.evaluate('document.documentElement.scrollWidth')]).toEqual([
        path,
        390,
      ]);
    }
    // The afterEach of test/helpers/browser.ts fails this test on any CSP violation or error.
    await page.context().close();
  });

  it('shows a styled 404 page with the navigation', async () => {
    const page = await signedIn(1100);
    const res = await page.goto(url('/sessions/999999'));
    expect(res!.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toContain('Not found');
    expect(await page.locator('main').textContent()).toContain('session 999999 does not exist');
    await page.click('main a:has-text("Memories")');
    await page.waitForURL(url('/memories'));
    await page.context().close();
  });
});
