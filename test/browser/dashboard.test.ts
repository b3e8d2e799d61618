/**
 * The dashboard in a real browser: sign in, curate memories while the table refreshes itself,
 * search them as you type, say what a service is, watch a live session (the real Claude CLI
 * against the simulated model), and take the screenshots the README shows.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Browser, Page } from 'playwright-core';
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
  nextScheduledRefresh,
  startLiveSession,
  waitForPage,
} from '../helpers/browser.js';
import { TOKEN } from '../helpers/web.js';
import { XSS_CORPUS } from '../helpers/xss.js';
import { seedMemory } from '../helpers/db.js';

// Screenshots go to a temp folder unless WATCHKEEPER_SCREENSHOTS names one (npm run screenshots).
const SCREENSHOTS =
  process.env.WATCHKEEPER_SCREENSHOTS ?? join(tmpdir(), 'watchkeeper-screenshots');

/**
 * A screenshot of the page as it is. The caret is left alone: Playwright hides it by setting a
 * style on every input, which leaves a `style` attribute behind that htmx later copies onto the
 * swapped-in input, and the page's CSP (no inline styles) refuses that.
 */
const screenshot = (name: string) =>
  page.screenshot({ path: join(SCREENSHOTS, name), fullPage: false, caret: 'initial' });

let browser: Browser;
let page: Page;
let rt: Runtime;
let web: WebServer;
let sim: SimulatedModel;
let dataDir: string;
let release: () => void = () => {};
let gate: Promise<void> = Promise.resolve();
const dialogs: string[] = [];

const text = (t: string): SimBlock => ({ type: 'text', text: t });

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-browser-'));
  sim = await startSimulatedModel(async (r) => {
    if (!Array.isArray(r.body.tools) || r.body.tools.length === 0) return [text('ok')];
    if (r.turn === 0) {
      return [
        text('Checking jellyfin.\n[EVENT:warning:jellyfin] /health took 2.9s (threshold 1s)'),
        {
          type: 'tool_use',
          name: 'Bash',
          input: {
            command: "printf 'line one\\nline two\\nline three\\n'",
            description: 'multi-line output',
          },
        },
      ];
    }
    await gate; // the test decides when the session goes on
    return [
      text(
        'jellyfin is slow but up.\n[MEMORY:timing:jellyfin] Takes 60s to start after a restart\n[EVENT:info:jellyfin] still answering',
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
  const app = createDashboard(rt, { clock: systemClock, demo: false });
  web = await startWebServer(app, config.web);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.accept();
  });
});

afterAll(async () => {
  if (!HAVE_CHROMIUM) return;
  release();
  await browser?.close();
  await rt?.scheduler.shutdown();
  await web?.close();
  await sim?.close();
  await rt?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const url = (path: string) => new URL(path, web.url).toString();
const rowOf = (observation: string) => page.locator('#memory-rows tr', { hasText: observation });

describe.skipIf(!HAVE_CHROMIUM)('dashboard in a real browser', () => {
  it('signs in with the token', async () => {
    await page.goto(url('/memories'));
    expect(page.url()).toContain('/login?next=%2Fmemories');
    await page.fill('input[name=token]', TOKEN);
    await page.click('button[type=submit]');
    await page.waitForURL(url('/memories'));
    await expect(page.locator('h1').textContent()).resolves.toBe('Memories');
  });

  it('creates a memory from the form', async () => {
    await page.click('summary:has-text("New memory")');
    await page.fill('#memory-create input[name=service]', 'caddy');
    await page.selectOption('#memory-create select[name=category]', 'dependency');
    await page.fill('#memory-create input[name=observation]', 'Starts only after WireGuard is up');
    await page.click('#memory-create button[type=submit]');
    await rowOf('Starts only after WireGuard is up').waitFor();
    expect(rt.stores.memories.list().map((m) => m.service)).toContain('caddy');
  });

  it('keeps an inline edit while the table refreshes itself, then saves it', async () => {
    const m = seedMemory(rt, {
      service: 'jellyfin',
      category: 'timing',
      observation: 'Takes 60s to start',
    });
    await page.reload();
    await rowOf('Takes 60s to start').locator('button', { hasText: 'Edit' }).click();
    const editor = page.locator(`#memory-${m.id} textarea[name=observation]`);
    await editor.fill('Takes 90s to start on the NAS');
    // Meanwhile the agent changes another memory; the refresh must not clobber the open edit.
    seedMemory(rt, {
      service: 'postgres',
      category: 'maintenance',
      observation: 'Needs VACUUM weekly',
    });
    expect(await nextScheduledRefresh(page, 'memory-table')).toBe('held back');
    expect(await editor.inputValue()).toBe('Takes 90s to start on the NAS');
    await page.fill(`#memory-${m.id} input[name=confidence]`, '1.5');
    await page.click(`#memory-${m.id} button:has-text("Save")`);
    await page.locator(`#memory-${m.id} .error`).waitFor();
    expect(await page.locator(`#memory-${m.id} .error`).textContent()).toContain(
      'confidence: must be a number from 0 to 1',
    );
    expect(rt.stores.memories.get(m.id)!.observation).toBe('Takes 60s to start');
    await page.fill(`#memory-${m.id} input[name=confidence]`, '0.9');
    await page.click(`#memory-${m.id} button:has-text("Save")`);
    await page.locator(`#memory-${m.id}:not(.editing)`).waitFor();
    expect(rt.stores.memories.get(m.id)).toMatchObject({
      observation: 'Takes 90s to start on the NAS',
      confidence: 0.9,
    });
    // With the edit closed, the refresh brings in what the agent added meanwhile.
    await rowOf('Needs VACUUM weekly').waitFor();
  });

  it('filters by category and keeps the filter across refreshes', async () => {
    await page.selectOption('#memory-filters select[name=category]', 'maintenance');
    await waitForPage(page, "document.querySelectorAll('#memory-rows tr').length === 1");
    expect(await nextScheduledRefresh(page, 'memory-table')).toBe('replaced');
    const rows = await page.locator('#memory-rows tr').allTextContents();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain('Needs VACUUM weekly');
    await page.selectOption('#memory-filters select[name=category]', '');
  });

  it('bulk-deletes selected memories and reactivates an inactive one', async () => {
    const ids = ['one', 'two', 'three'].map(
      (n) =>
        seedMemory(rt, { service: 'bulk', category: 'behavior', observation: `bulk memory ${n}` })
          .id,
    );
    const inactive = seedMemory(rt, {
      service: 'old',
      category: 'behavior',
      observation: 'an old stale memory',
    });
    await rt.knowledge.memory.deactivate([inactive.id]);
    await page.goto(url('/memories'));
    for (const id of ids) await page.check(`input[name=ids][value="${id}"]`);
    expect(await page.locator('#bulk-count').textContent()).toBe('3');
    await page.click('#bulk-bar button:has-text("Delete")');
    await page.locator('#flash', { hasText: 'Deleted 3 memories.' }).waitFor();
    expect(dialogs.at(-1)).toContain('Delete the selected memories?');
    await waitForPage(page, "!document.body.textContent.includes('bulk memory one')");
    expect(ids.map((id) => rt.stores.memories.get(id))).toEqual([null, null, null]);

    const row = page.locator(`#memory-${inactive.id}`);
    expect(await row.getAttribute('class')).toContain('inactive');
    await row.locator('details.row-menu summary').click(); // the row's actions menu
    await row.locator('button', { hasText: 'Reactivate' }).click();
    await page.locator(`#memory-${inactive.id}:not(.inactive)`).waitFor();
    expect(rt.stores.memories.get(inactive.id)!.active).toBe(true);
    await screenshot('memories.png');
  });

  it('searches memories as you type: ranked, each with why, the filter kept, no reload', async () => {
    await rt.knowledge.memory.add({
      service: 'plex',
      category: 'timing',
      observation: 'Needs about two minutes after a reboot before streams play again',
    });
    await rt.knowledge.memory.add({
      service: 'traefik',
      category: 'dependency',
      observation: 'Routes fail until the docker socket is mounted',
    });
    await page.goto(url('/memories'));
    await page.selectOption('#memory-filters select[name=category]', 'timing');
    await waitForPage(
      page,
      "[...document.querySelectorAll('#memory-rows tr td:nth-child(3)')].every((td) => td.textContent === 'timing')",
    );
    await page.evaluate('window.notReloaded = true');
    await page.keyboard.press('/'); // jumps to the search box
    expect(await page.evaluate('document.activeElement.id')).toBe('memory-search');
    const query = 'media server needs minutes after a reboot';
    await page.keyboard.type(query, { delay: 20 });
    await page.locator(`#memory-table[data-q="${query}"]`).waitFor();
    const first = page.locator('#memory-rows tr').first();
    expect(await first.textContent()).toContain('Needs about two minutes after a reboot');
    expect(await first.locator('.why').textContent()).toMatch(/^1\. .*score \d\.\d\d$/);
    const categories = await page.locator('#memory-rows tr td:nth-child(3)').allTextContents();
    expect(new Set(categories)).toEqual(new Set(['timing'])); // the filter applies to the search
    expect(await page.locator('#memory-rows').textContent()).not.toContain('docker socket');
    expect(await page.evaluate('window.notReloaded')).toBe(true);
    expect(new URL(page.url()).searchParams.get('q')).toBe(query);
    // The 5 s refresh keeps the query and its results.
    expect(await nextScheduledRefresh(page, 'memory-table')).toBe('replaced');
    expect(await page.locator('#memory-table').getAttribute('data-q')).toBe(query);
    expect(await page.locator('#memory-rows tr').first().textContent()).toContain(
      'Needs about two minutes after a reboot',
    );
    expect(await page.inputValue('#memory-search')).toBe(query);
    await screenshot('memory-search.png');
  });

  it('lists services and saves what one is', async () => {
    await page.goto(url('/memories'));
    await page.click('nav a:has-text("Services")');
    await page.waitForURL(url('/services'));
    const row = page.locator('#service-plex');
    expect(await row.textContent()).toContain('media server');
    expect(await row.locator('.badge.source').textContent()).toBe('catalog');
    await row.locator('a', { hasText: 'plex' }).click();
    await page.waitForURL(url('/services/plex'));
    await page.fill(
      '#service-description-input',
      'the living-room TV box, serves the family films',
    );
    await page.click('#service-describe button[type=submit]');
    await page.waitForURL(url('/services/plex?saved=1'));
    expect(await page.locator('#service-description').textContent()).toBe(
      'the living-room TV box, serves the family films',
    );
    expect(await page.locator('main').textContent()).toContain('The catalog says: media server');
    expect(await rt.knowledge.services.show('plex')).toMatchObject({
      description: 'the living-room TV box, serves the family films',
      descriptionSource: 'operator',
    });
    await page.goto(url('/services'));
    expect(await page.locator('#service-plex').textContent()).toContain('the living-room TV box');
    expect(await page.locator('#service-plex .badge.source').textContent()).toBe('operator');
    await screenshot('services.png');
  });

  it('follows a live session: the log grows and events appear without a reload', async () => {
    gate = new Promise<void>((r) => (release = r));
    const sessionId = await startLiveSession(rt, 'check jellyfin');
    await page.goto(url(`/sessions/${sessionId}`));
    const log = page.locator('#live-log');
    // The tool's result, not its call (whose command holds the same words).
    const result = log.locator('.entry pre', { hasText: 'line three' });
    await result.waitFor();
    // Every line of the multi-line tool result arrived.
    expect(await result.textContent()).toBe('line one\nline two\nline three');
    const before = await log.locator('.entry').count();
    await screenshot('session-live.png');

    // An events page opened now shows the live session's event, then picks up the next one by itself.
    const events = await browser.newPage({ viewport: { width: 1360, height: 860 } });
    await events.context().addCookies(await page.context().cookies());
    await events.goto(url('/events'));
    await events.locator('text=/health took 2.9s').waitFor();
    release();
    await log.locator('text=still answering').waitFor();
    expect(await log.locator('.entry').count()).toBeGreaterThan(before);
    await events.locator('text=still answering').waitFor();
    await events.close();
    expect(page.url()).toBe(url(`/sessions/${sessionId}`)); // never reloaded
  });

  it('shows the overview', async () => {
    await page.goto(url('/'));
    await screenshot('overview.png');
    expect(await page.locator('main').textContent()).toContain('Active memories');
  });

  it("reads a finished session's large log a page at a time, loading earlier pages in place", async () => {
    const lines = Array.from({ length: 6_000 }, (_, i) =>
      JSON.stringify({
        type: 'assistant',
        message: {
          role: 'assistant',
          content: [{ type: 'text', text: `log line ${i} ${'.'.repeat(100)}` }],
        },
        parent_tool_use_id: null,
      }),
    );
    mkdirSync(join(dataDir, 'sessions'), { recursive: true });
    writeFileSync(join(dataDir, 'sessions/paged.ndjson'), `${lines.join('\n')}\n`);
    const id = rt.stores.sessions.start({
      trigger: 'manual',
      tier: 1,
      startedAt: Date.now(),
      logPath: 'sessions/paged.ndjson',
    });
    rt.stores.sessions.finish(id, { status: 'completed', endedAt: Date.now() });
    await page.goto(url(`/sessions/${id}`));
    const log = page.locator('#session-log');
    await expect(log.locator('.entry').last().textContent()).resolves.toContain('log line 5999 ');
    const firstPage = await log.locator('.entry').count();
    expect(firstPage).toBeLessThan(6_000);
    let clicks = 0;
    while ((await log.locator('.log-earlier button').count()) > 0 && clicks < 20) {
      const shown = await log.locator('.entry').count();
      await log.locator('.log-earlier button').click();
      // The page before arrives in place of the button: one entry more than were shown.
      await log.locator('.entry').nth(shown).waitFor();
      clicks += 1;
    }
    expect(clicks).toBeGreaterThan(1);
    const texts = await log.locator('.entry').allTextContents();
    expect(texts).toHaveLength(6_000);
    expect(texts[0]).toContain('log line 0 ');
    expect(texts.every((t, i) => t.includes(`log line ${i} `))).toBe(true);
    expect(page.url()).toBe(url(`/sessions/${id}`));
  });

  it('renders the XSS corpus inert: no script runs, no dialog opens', async () => {
    const before = dialogs.length;
    for (const payload of XSS_CORPUS)
      seedMemory(rt, { service: null, category: 'behavior', observation: payload });
    const id = rt.stores.sessions.start({ trigger: 'manual', tier: 1, startedAt: Date.now() });
    rt.stores.sessions.finish(id, {
      status: 'completed',
      endedAt: Date.now(),
      response: XSS_CORPUS.join('\n\n'),
    });
    for (const payload of XSS_CORPUS) {
      rt.stores.events.insert({
        sessionId: id,
        source: 'agent',
        level: 'critical',
        service: null,
        message: payload,
        createdAt: Date.now(),
      });
    }
    for (const path of ['/memories', '/events', `/sessions/${id}`, '/sessions', '/']) {
      await page.goto(url(path));
      await page.waitForTimeout(300);
    }
    await page.goto(url('/memories'));
    await page.locator('img').count(); // images from payloads would have fired onerror by now
    expect(dialogs.slice(before)).toEqual([]);
  });
});
