/**
 * The Memory graph pages in a real browser (Debian's chromium): sign in, the conversations and
 * the evolution chain, the intent filter swapping the latest ideas in place, a conversation's
 * topic tree, an idea and what superseded it, an entity's ideas, the recall box, and a watchkeeper
 * session's topics and ideas loaded on its page.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createDashboard } from '../../src/cli/dashboard.js';
import { createRuntime, type Runtime } from '../../src/cli/runtime.js';
import { systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config/index.js';
import { createGraph } from '../../src/graph/index.js';
import { silentLogger } from '../../src/log.js';
import { startWebServer, type WebServer } from '../../src/web/server.js';
import { HAVE_CHROMIUM, launchBrowser, waitForPage } from '../helpers/browser.js';
import { MAIN, SESSION, SUBAGENT } from '../helpers/graph.js';
import { TOKEN } from '../helpers/web.js';

const REAL_LOG = fileURLToPath(
  new URL('../fixtures/transcripts/real-cli-2.1.197.ndjson', import.meta.url),
);

let browser: Browser;
let page: Page;
let rt: Runtime;
let web: WebServer;
let dataDir: string;
let wkSession: number;

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-browser-graph-'));
  const config = loadConfig({
    WATCHKEEPER_DATA_DIR: dataDir,
    WATCHKEEPER_AUTH_TOKEN: TOKEN,
    WATCHKEEPER_PORT: '0',
    WATCHKEEPER_SCHEDULE: 'off',
    WATCHKEEPER_EMBEDDINGS: 'off',
  });
  rt = createRuntime({
    config,
    clock: systemClock,
    log: silentLogger,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dataDir },
  });
  const graph = createGraph({
    db: rt.stores.db,
    embedding: rt.knowledge.embedding,
    clock: systemClock,
    dataDir,
  });
  await graph.index(MAIN);
  await graph.index(SUBAGENT);
  // A watchkeeper session that ended, with its log: indexed when its page is first shown.
  wkSession = rt.stores.sessions.start({
    trigger: 'manual',
    tier: 1,
    prompt: 'Why is jellyfin slow to answer its health check?',
    startedAt: Date.UTC(2026, 2, 10),
  });
  mkdirSync(join(dataDir, 'sessions'), { recursive: true });
  const log = join(dataDir, 'sessions', `${wkSession}.ndjson`);
  copyFileSync(REAL_LOG, log);
  await rt.stores.sessions.setLogPath(wkSession, join('sessions', `${wkSession}.ndjson`));
  rt.stores.sessions.finish(wkSession, {
    status: 'completed',
    endedAt: Date.UTC(2026, 2, 10, 0, 5),
  });

  web = await startWebServer(createDashboard(rt, { clock: systemClock, demo: false }), config.web);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
});

afterAll(async () => {
  if (!HAVE_CHROMIUM) return;
  await browser?.close();
  await rt?.scheduler.shutdown();
  await web?.close();
  await rt?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const url = (path: string) => new URL(path, web.url).toString();

describe.skipIf(!HAVE_CHROMIUM)('the Memory graph in a real browser', () => {
  it('signs in and shows the conversations, the evolution chain and the entities', async () => {
    await page.goto(url('/graph'));
    await page.fill('input[name=token]', TOKEN);
    await page.click('button[type=submit]');
    await page.waitForURL(url('/graph'));
    expect(await page.locator('h1').textContent()).toBe('Memory graph');
    expect(await page.locator('nav a.active').textContent()).toBe('Memory graph');
    expect(await page.locator('#graph-sessions tbody tr').count()).toBe(2);
    const chain = await page.locator('#graph-chains li').first().textContent();
    expect(chain).toMatch(
      /We decided to run the nightly restic backup at 02:00[\s\S]*superseded[\s\S]*from 02:00 to 01:00/,
    );
    expect(await page.locator('#graph-entities').textContent()).toContain('PostgreSQL');
  });

  it('filters the latest ideas by intent in place', async () => {
    await page.selectOption('#graph-intent select[name=intent]', 'problem');
    await waitForPage(
      page,
      "[...document.querySelectorAll('#graph-latest .graph-idea .badge')].every((b) => b.textContent === 'problem')",
    );
    const items = await page.locator('#graph-latest .graph-idea').allTextContents();
    expect(items).toHaveLength(2);
    expect(items.join(' ')).toContain('Caddy keeps failing to renew');
    expect(page.url()).toContain('intent=problem');
  });

  it('recalls from the box: grouped by topic, with the evolution chain', async () => {
    await page.fill('#graph-remember input[name=q]', 'decisions about the backup window');
    await page.click('#graph-remember button[type=submit]');
    await page.locator('#graph-answer').waitFor();
    const answer = (await page.locator('#graph-answer').textContent()) ?? '';
    expect(answer).toContain('We changed the nightly restic backup from 02:00 to 01:00 instead');
    expect(answer).toMatch(/evolution:[\s\S]*superseded/);
  });

  it('opens a conversation as a topic tree, then an idea and what superseded it, then an entity', async () => {
    await page.goto(url('/graph'));
    await page.click(`#graph-sessions a[href="/graph/sessions/${SESSION}"]`);
    await page.locator('.graph-tree').first().waitFor();
    const topics = await page
      .locator('.graph-topic.depth-0 > .graph-topic-head strong')
      .allTextContents();
    expect(topics).toHaveLength(3);
    await page.click('a:has-text("We decided to run the nightly restic backup at 02:00")');
    await page.locator('#idea-content').waitFor();
    expect(await page.locator('#idea-relations').textContent()).toMatch(
      /from 02:00 to 01:00[\s\S]*supersedes #/,
    );
    await page.click('#idea-relations a:has-text("from 02:00 to 01:00")');
    await page.locator('#idea-content', { hasText: 'from 02:00 to 01:00' }).waitFor();
    await page.click('a.badge:has-text("restic")');
    await page.locator('h1', { hasText: 'restic' }).waitFor();
    expect(await page.locator('#entity-ideas .graph-idea').count()).toBeGreaterThanOrEqual(5);
  });

  it("shows a watchkeeper session's topics and ideas on its page", async () => {
    await page.goto(url(`/sessions/${wkSession}`));
    await page.locator('#graph-topics .graph-tree').waitFor();
    const tree = (await page.locator('#graph-topics').textContent()) ?? '';
    expect(tree).toContain('Why is jellyfin slow to answer its health check?');
    expect(tree).toContain('Takes 60s to start after restart');
    expect(tree).not.toContain('hello-from-tool');
  });
});
