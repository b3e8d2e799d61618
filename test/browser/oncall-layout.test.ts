/**
 * The dashboard as an on-call reads it, at 1440 px and on a 390 px phone: every page fits its
 * width, no table cell breaks a word inside the word, every time is on one line, a run whose
 * restart was refused says it needs a human and why, the Sessions list has one row per run, and a
 * fragment's address opened directly is a styled page. One server, one browser, every page.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Runtime } from '../../src/cli/runtime.js';
import { HAVE_CHROMIUM } from '../helpers/browser.js';
import { type BrowserDashboard, startBrowserDashboard } from '../helpers/browser-dashboard.js';
import { seedMemory } from '../helpers/db.js';

const PAGES = [
  '/',
  '/sessions',
  '/events',
  '/events?view=grouped',
  '/memories',
  '/services',
  '/services/jellyfin',
  '/cooldowns',
  '/conversations',
  '/gateway',
  '/graph',
  '/notifications',
  '/runbooks',
  '/settings',
];
const WIDTHS = [1440, 390];

let d: BrowserDashboard;
let refusedRun = 0;
let lastSession = 0;

/** A three-tier run like the demo's: tier 3's restart refused by the cooldown, a critical event left. */
function seedRuns(r: Runtime): void {
  const s = r.stores;
  const now = Date.now();
  const event = (
    sessionId: number,
    source: 'agent' | 'system',
    level: 'info' | 'warning' | 'critical',
    message: string,
  ) =>
    s.events.insert({
      sessionId,
      source,
      level,
      service: source === 'agent' ? 'jellyfin' : null,
      message,
      createdAt: now,
    });
  let parent: number | null = null;
  for (const tier of [1, 2, 3]) {
    const id = s.sessions.start({
      trigger: tier === 1 ? 'scheduled' : 'escalation',
      tier,
      model: `claude-tier-${tier}-model-20251001`,
      parentSessionId: parent,
      startedAt: now - (4 - tier) * 60_000,
    });
    s.sessions.finish(id, {
      status: tier < 3 ? 'escalated' : 'completed',
      endedAt: now - (4 - tier) * 60_000 + 3_100,
      durationMs: 1_200,
      costUsd: 0.004,
      numTurns: 2,
    });
    if (tier === 1) refusedRun = id;
    parent = id;
    lastSession = id;
  }
  event(
    lastSession,
    'system',
    'warning',
    'Blocked restart (cooldown): ssh media-host docker restart jellyfin',
  );
  event(
    lastSession,
    'agent',
    'critical',
    'Restart blocked by cooldown; the wedged transcode worker needs a human before the queue drains',
  );
  for (let i = 0; i < 12; i += 1) {
    event(
      lastSession,
      'agent',
      'warning',
      `14 transcode jobs queued behind a wedged worker, attempt ${i}; cooldown window still open`,
    );
  }
  s.cooldowns.recordBlock({
    service: 'jellyfin',
    actionType: 'restart',
    command: 'ssh media-host docker restart jellyfin',
    reason: 'watchkeeper: jellyfin is in its restart cooldown (2 of 2 in 24h)',
    sessionId: lastSession,
    createdAt: now,
  });
  s.notifications.record(
    {
      kind: 'critical_event',
      level: 'failure',
      service: 'jellyfin',
      title: 'Critical: jellyfin',
      body: 'Restart blocked by cooldown; the wedged transcode worker needs a human',
      dedupKey: 'critical:jellyfin',
      sessionId: lastSession,
      at: now,
    },
    null,
  );
  // An earlier run that resolved, so the list has more than one outcome.
  const ok = s.sessions.start({ trigger: 'manual', tier: 1, startedAt: now - 600_000 });
  s.sessions.finish(ok, { status: 'completed', endedAt: now - 590_000, costUsd: 0.001 });
}

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  d = await startBrowserDashboard({
    // Once a year at new year's midnight: a next run to show, none that starts during the test.
    WATCHKEEPER_SCHEDULE: '0 0 1 1 *',
    WATCHKEEPER_TZ: 'UTC',
  });
  d.rt.scheduler.start();
  seedRuns(d.rt);
  seedMemory(d.rt, {
    service: 'jellyfin',
    category: 'timing',
    observation:
      'After a restart jellyfin answers /health only once the media library scan has finished',
  });
});

afterAll(async () => {
  if (!HAVE_CHROMIUM) return;
  await d?.close();
});

const url = (path: string) => d.url(path);
const pageOf = (width: number): Promise<Page> => d.pageAt(width);

/**
 * What does not fit, measured in the page: sideways overflow, cells whose words were broken
 * inside a word (a word's own box wider than its cell, or a word split over two lines), and
 * times taller than one line.
 */
const MEASURE = `(() => {
  const problems = [];
  const lines = (node, start, length) => {
    const range = document.createRange();
    range.setStart(node, start);
    range.setEnd(node, start + length);
    return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
  };
  if (document.documentElement.scrollWidth > innerWidth) {
    problems.push('page scrolls sideways: ' + document.documentElement.scrollWidth + ' > ' + innerWidth);
  }
  for (const cell of document.querySelectorAll('main td')) {
    if (cell.offsetParent === null) continue;
    const style = getComputedStyle(cell);
    if (style.wordBreak === 'break-all' || style.overflowWrap === 'anywhere') {
      problems.push('cell may break any word: ' + cell.textContent.trim().slice(0, 40));
    }
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const re = /\\S+/g;
      for (let m = re.exec(node.data); m; m = re.exec(node.data)) {
        if (m[0].length > 30) continue; // a path or hash may wrap where it must
        if (lines(node, m.index, m[0].length) === 1) continue;
        // "SQLite-backed" may wrap after its hyphen, as print does: each part on one line.
        const parts = m[0].match(/[^-]*-|[^-]+/g);
        let at = m.index;
        const whole = parts.every((part) => {
          const one = lines(node, at, part.length) === 1;
          at += part.length;
          return one;
        });
        if (!whole) problems.push('word broken across lines: ' + m[0]);
      }
    }
  }
  for (const card of document.querySelectorAll('main .stat')) {
    const edge = card.getBoundingClientRect().right - parseFloat(getComputedStyle(card).paddingRight) + 1;
    for (const v of card.querySelectorAll('.value, .value *')) {
      if (v.getBoundingClientRect().right > edge) problems.push('card value reaches its edge: ' + v.textContent.trim());
    }
  }
  for (const t of document.querySelectorAll('main time')) {
    if (t.offsetParent === null) continue;
    const lineHeight = parseFloat(getComputedStyle(t).lineHeight) || 20;
    const rects = [...t.getClientRects()];
    if (rects.length > 1 || t.getBoundingClientRect().height > lineHeight * 1.5) {
      problems.push('time on more than one line: ' + t.textContent);
    }
  }
  return problems;
})()`;

describe.skipIf(!HAVE_CHROMIUM)('the dashboard on a laptop and on a phone', () => {
  it('fits every page at 1440 and 390 px: no sideways scroll, no word broken, times on one line', async () => {
    const found: string[] = [];
    for (const width of WIDTHS) {
      const page = await pageOf(width);
      for (const path of PAGES) {
        const res = await page.goto(url(path));
        expect([path, res!.status()]).toEqual([path, 200]);
        const problems = (await page.evaluate(MEASURE)) as string[];
        found.push(...problems.map((p) => `${width} ${path}: ${p}`));
      }
      await page.context().close();
    }
    expect(found).toEqual([]);
  });

  it('says a run whose restart was refused needs a human, and why, on the Overview and on Sessions', async () => {
    const page = await pageOf(1440);
    await page.goto(url('/'));
    const needs = page.locator('#needs-human');
    expect(await needs.textContent()).toMatch(
      /needs a human\s+restart refused, critical event left/,
    );
    expect(await page.locator('#last-run').textContent()).toContain('needs a human');
    // It leads the page, before the stat cards.
    const order = await page.evaluate(
      "document.querySelector('#needs-human').compareDocumentPosition(document.querySelector('#outcome-card'))",
    );
    expect(Number(order) & 4).toBe(4);
    expect(await page.locator('#outcome-card .sub').textContent()).toContain('1 needs a human');

    await page.goto(url('/sessions'));
    const rows = page.locator('#session-rows tr.run');
    expect(await rows.count()).toBe(2);
    const refused = page.locator(`#run-${refusedRun}`);
    expect(await refused.locator('.chip').allTextContents()).toEqual(['T1', 'T2', 'T3']);
    expect(await refused.locator('.badge.outcome').textContent()).toBe('needs a human');
    expect(await refused.locator('.outcome-why').textContent()).toBe(
      'restart refused, critical event left',
    );
    // Its sessions open under it, and stay open across the rows' refresh.
    const sessions = page.locator(`#run-${refusedRun}-sessions`);
    expect(await sessions.isVisible()).toBe(false);
    await refused.locator('.run-toggle').click();
    expect(await sessions.locator('li').count()).toBe(3);
    await page.evaluate("document.body.dispatchEvent(new CustomEvent('sessions-changed'))");
    await page.waitForResponse((r) => r.url().includes('/sessions/rows'));
    await page.waitForTimeout(100);
    expect(await page.locator(`#run-${refusedRun}-sessions`).isVisible()).toBe(true);
    // Every cell's text, the summary's too, starts on the row's first line.
    const tops =
      (await refused.evaluate(`[...document.querySelectorAll('#run-${refusedRun} > td')].map((td) => {
      const range = document.createRange();
      range.selectNodeContents(td);
      const first = [...range.getClientRects()].find((r) => r.width > 0);
      return first ? first.top : null;
    }).filter((t) => t !== null)`)) as number[];
    expect(Math.max(...tops) - Math.min(...tops)).toBeLessThan(6);
    await page.context().close();
  });

  it('shows the wall duration of a session with the CLI figure beside it', async () => {
    const page = await pageOf(1440);
    await page.goto(url(`/sessions/${lastSession}`));
    expect(await page.locator('dt:has-text("Duration") + dd').textContent()).toBe(
      '3.1 s (the CLI reported 1.2 s)',
    );
    await page.context().close();
  });

  it('renders a fragment opened directly as a styled page with the navigation', async () => {
    const page = await pageOf(390);
    for (const path of [
      `/graph/watchkeeper/${lastSession}`,
      '/sessions/rows',
      '/overview/activity',
    ]) {
      const res = await page.goto(url(path));
      expect([path, res!.status()]).toEqual([path, 200]);
      expect(await page.locator('#nav-toggle').isVisible()).toBe(true);
      const background = await page.evaluate('getComputedStyle(document.body).backgroundColor');
      expect(background).not.toBe('rgba(0, 0, 0, 0)');
    }
    await page.context().close();
  });
});
