/**
 * The operator controls in a real browser: cancel a queued run (and see a repeated alert counted
 * once), reset a cooldown with a reason, group and acknowledge repeated events, search events by
 * text, and filter sessions, with the totals on the pager. The CLI is the fake one: a session
 * that hangs keeps the queue waiting.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createDashboard } from '../../src/cli/dashboard.js';
import { createRuntime, type Runtime } from '../../src/cli/runtime.js';
import { MINUTE_MS, systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config/index.js';
import type { NewEvent } from '../../src/db/index.js';
import { silentLogger } from '../../src/log.js';
import { startWebServer, type WebServer } from '../../src/web/server.js';
import { HAVE_CHROMIUM, launchBrowser } from '../helpers/browser.js';
import { FAKE_CLAUDE } from '../helpers/runner.js';
import { TOKEN } from '../helpers/web.js';

let browser: Browser;
let page: Page;
let rt: Runtime;
let web: WebServer;
let dataDir: string;

const url = (path: string) => new URL(path, web.url).toString();

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-browser-controls-'));
  const config = loadConfig({
    WATCHKEEPER_DATA_DIR: dataDir,
    // Words only: the pages are under test here; ranking by meaning is tested in test/web/search.test.ts.
    WATCHKEEPER_EMBEDDINGS: 'off',
    WATCHKEEPER_AUTH_TOKEN: TOKEN,
    WATCHKEEPER_PORT: '0',
    WATCHKEEPER_SCHEDULE: 'off',
    WATCHKEEPER_CLAUDE_BIN: FAKE_CLAUDE,
    WATCHKEEPER_SESSION_TIMEOUT: '60s',
    WATCHKEEPER_KILL_GRACE: '1s',
    WATCHKEEPER_STDOUT_GRACE: '1s',
  });
  rt = createRuntime({
    config,
    clock: systemClock,
    log: silentLogger,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dataDir },
  });
  web = await startWebServer(createDashboard(rt, { clock: systemClock, demo: false }), config.web);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
  page.on('dialog', (d) => void d.accept());
});

afterAll(async () => {
  if (!HAVE_CHROMIUM) return;
  await browser?.close();
  await rt?.scheduler.shutdown();
  await web?.close();
  await rt?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const alert = (text: string) =>
  page.request.post(url('/api/v1/webhook'), {
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'text/plain' },
    data: text,
  });

function event(over: Partial<NewEvent>): NewEvent {
  return {
    sessionId: null,
    source: 'agent',
    level: 'warning',
    service: 'nas',
    message: 'disk /volume1 is 91% full',
    createdAt: Date.now(),
    ...over,
  };
}

describe.skipIf(!HAVE_CHROMIUM)('operator controls in a real browser', () => {
  it('signs in', async () => {
    await page.goto(url('/sessions'));
    await page.fill('input[name=token]', TOKEN);
    await page.click('button[type=submit]');
    await page.waitForURL(url('/sessions'));
  });

  it('counts a repeated alert on one queued run and cancels a queued run', async () => {
    const hanging = rt.scheduler.trigger({
      trigger: 'manual',
      startTier: 1,
      prompt: 'hang',
      alert: null,
    });
    const first = await (await alert('jellyfin: 5xx above 5% for 10 minutes')).json();
    const second = await (await alert('jellyfin: 5xx above 5% for 10 minutes')).json();
    expect(second).toEqual({ request_id: first.request_id, repeats: 1 });
    const doomed = rt.scheduler.trigger({
      trigger: 'manual',
      startTier: 1,
      prompt: 'not needed after all',
      alert: null,
    });

    await page.goto(url('/sessions'));
    const queue = page.locator('#run-queue-table');
    await queue.waitFor();
    await expect.poll(() => queue.locator('tbody tr').count()).toBe(3);
    expect(await page.locator(`#run-${first.request_id}`).textContent()).toContain('+1 repeats');

    await page.locator(`#run-${doomed.id} button:has-text("Cancel")`).click();
    await page
      .locator('#run-queue .notice', { hasText: 'Cancelled the queued manual run.' })
      .waitFor();
    expect(await page.locator(`#run-${doomed.id}`).count()).toBe(0);
    expect(doomed).toMatchObject({ state: 'cancelled', cancelledBy: 'dashboard (token sign-in)' });
    expect(hanging.state).toBe('running');
    // The session filters below look for this run's manual session: stop it once it has one.
    await expect.poll(() => hanging.sessionIds.length).toBe(1);
    rt.scheduler.stopCurrent();
  });

  it('resets a cooldown with a reason, shown in the history', async () => {
    for (const ago of [30, 20]) {
      rt.stores.cooldowns.insert({
        service: 'jellyfin',
        actionType: 'restart',
        success: true,
        source: 'agent',
        command: null,
        message: null,
        tier: 3,
        sessionId: null,
        createdAt: Date.now() - ago * MINUTE_MS,
      });
    }
    await page.goto(url('/cooldowns'));
    expect(await page.locator('#cooldown-state').textContent()).toContain('in cooldown');
    await page.click('summary:has-text("Reset or raise a cooldown")');
    await page.fill('#cooldown-override input[name=service]', 'jellyfin');
    await page.selectOption('#cooldown-override select[name=action]', 'restart');
    await page.fill('#cooldown-override input[name=reason]', 'replaced the failing disk');
    await page.click('#cooldown-override button[type=submit]');
    await page.locator('#cooldown-override .notice').waitFor();
    const history = page.locator('#cooldown-overrides', { hasText: 'replaced the failing disk' });
    await history.waitFor();
    expect(await history.textContent()).toContain('dashboard (token sign-in)');
    await expect
      .poll(() => page.locator('#cooldown-state').textContent())
      .not.toContain('in cooldown');
  });

  it('groups repeated events, acknowledges a group and shows it again on request', async () => {
    for (let i = 0; i < 3; i += 1) rt.stores.events.insert(event({}));
    rt.stores.events.insert(
      event({ level: 'critical', service: 'caddy', message: 'certificate expires in 2 days' }),
    );
    await page.goto(url('/events'));
    await page.selectOption('#event-filters select[name=view]', 'groups');
    const group = page.locator('#event-groups tr', { hasText: 'disk /volume1 is 91% full' });
    await group.waitFor();
    expect(await group.textContent()).toMatch(/\b3\b/);

    await group.locator('button:has-text("Acknowledge")').click();
    await group.waitFor({ state: 'detached' });
    expect(await page.locator('#event-groups').textContent()).toContain('certificate expires');

    await page.check('#event-filters input[name=acked]');
    const acked = page.locator('#event-groups tr', { hasText: 'disk /volume1 is 91% full' });
    await acked.waitFor();
    expect(await acked.textContent()).toContain('by dashboard (token sign-in)');
  });

  it('searches events by text in a time range, with the total on the pager', async () => {
    await page.goto(url('/events'));
    await page.selectOption('#event-filters select[name=range]', '24h');
    await page.fill('#event-filters input[name=q]', 'certif');
    await page.press('#event-filters input[name=q]', 'Enter');
    await page.locator('#event-table .page-range', { hasText: '1–1 of 1' }).waitFor();
    expect(await page.locator('#event-table tbody').textContent()).toContain('certificate expires');
    expect(page.url()).toContain('q=certif');
  });

  it('filters sessions by trigger and tier', async () => {
    await page.goto(url('/sessions'));
    await page.selectOption('#session-filters select[name=trigger]', 'manual');
    await page.click('#session-filters button[type=submit]');
    await page.waitForURL(/trigger=manual/);
    const rows = await page.locator('#session-rows tr.run').allTextContents();
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r).toContain('manual');
    expect(await page.locator('.page-range').first().textContent()).toMatch(/^1–\d+ of \d+$/);

    await page.selectOption('#session-filters select[name=trigger]', 'alert');
    await page.selectOption('#session-filters select[name=tier]', '3');
    await page.click('#session-filters button[type=submit]');
    await page.waitForURL(/tier=3/);
    expect(await page.locator('.page-range').first().textContent()).toBe('0 of 0');
  });

  it('shows the repeats of an alert on the session it started', async () => {
    await expect
      .poll(() => rt.stores.sessions.list({ filter: { trigger: 'alert' } }).length)
      .toBe(1);
    await page.goto(url('/sessions?trigger=alert'));
    const row = page.locator('#session-rows tr.run').first();
    expect(await row.textContent()).toContain('+1 repeats');
    await row.locator('a').first().click();
    await page.locator('#alert-repeats').waitFor();
    expect(await page.locator('#alert-repeats').textContent()).toContain(
      'the same alert came 1 more time within the window',
    );
  });
});
