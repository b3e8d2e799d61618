/**
 * The Runbooks page in a real browser, on a laptop and on a phone, over a repos folder of three:
 * each repository with its manifest, documents and MCP servers, the one without a manifest by its
 * README, the broken one's warnings, and a check's last report, made by a session whose marker
 * went through the runner as any session's does, coloured as on Services. Nothing overflows
 * sideways, no name breaks over two lines, no phone label runs over the next cell.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { HAVE_CHROMIUM } from '../helpers/browser.js';
import { type BrowserDashboard, startBrowserDashboard } from '../helpers/browser-dashboard.js';
import { FAKE_CLAUDE } from '../helpers/runner.js';
import { assistantText, init, result, transcript } from '../helpers/stream.js';
import { opsRepos, TIER_RULE } from '../runbooks/ops-repos-fixture.js';
import type { ReposFolder } from '../runbooks/repos-fixture.js';

let d: BrowserDashboard;
let repos: ReposFolder;
let reported = 0;

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  repos = opsRepos();
  d = await startBrowserDashboard({
    WATCHKEEPER_REPOS_DIR: repos.dir,
    WATCHKEEPER_CLAUDE_BIN: FAKE_CLAUDE,
  });
  // A session reports the backups check by its name, as the runbooks section tells it to.
  const file = join(d.dataDir, 'backups-check.ndjson');
  writeFileSync(
    file,
    transcript([
      init(),
      assistantText('[HEALTH:down:backups] restic repository locked'),
      result('backups down'),
    ]),
  );
  const out = await d.rt.runChain({
    trigger: 'manual',
    startTier: 1,
    prompt: `replay:${file}`,
    alert: null,
  });
  reported = out.sessionIds[0]!;
});

afterAll(async () => {
  if (!HAVE_CHROMIUM) return;
  await d?.close();
  repos?.remove();
});

/**
 * What does not fit, measured in the page: sideways scroll, a document's name broken over two
 * lines, and on a phone a cell's label (its column's heading) reaching below its cell, over the
 * next one.
 */
const FIT = `(() => {
  const problems = [];
  if (document.documentElement.scrollWidth > innerWidth) {
    problems.push('page scrolls sideways: ' + document.documentElement.scrollWidth + ' > ' + innerWidth);
  }
  for (const row of document.querySelectorAll('tr[data-name]')) {
    const name = row.children[1];
    const range = document.createRange();
    range.selectNodeContents(name);
    const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
    if (tops.size > 1) problems.push('name on two lines: ' + name.textContent);
  }
  for (const cell of document.querySelectorAll('main td[data-label]')) {
    const label = getComputedStyle(cell, '::before');
    if (label.content === 'none' || cell.offsetParent === null) continue;
    if (parseFloat(label.height) > cell.clientHeight) {
      problems.push('label taller than its cell: ' + cell.dataset.label + ' of ' + cell.textContent.trim().slice(0, 30));
    }
  }
  return problems;
})()`;

const text = async (page: Page, selector: string) =>
  ((await page.locator(selector).innerText()) ?? '').replace(/\s+/g, ' ');

describe.skipIf(!HAVE_CHROMIUM)('the Runbooks page', () => {
  it.each([1440, 390])(
    'shows every repository, its documents and warnings at %i px',
    async (width) => {
      const page = await d.pageAt(width);
      expect((await page.goto(d.url('/runbooks')))!.status()).toBe(200);

      const infra = await text(page, '#repo-infra');
      expect(infra).toContain('Kind Ansible infrastructure');
      expect(infra).toContain('service-discovery: `inventory/hosts.yaml` lists every service');
      expect(infra).toContain(TIER_RULE);
      expect(infra).toContain('MCP servers: docker (stdio)');
      for (const [kind, name] of [
        ['check', 'backups'],
        ['check', 'media-library'],
        ['playbook', 'fix-media-perms'],
        ['skill', 'prune-old-logs'],
      ]) {
        const row = page.locator(`#repo-infra tr.runbook-${kind}[data-name="${name}"]`);
        expect([name, await row.isVisible()]).toEqual([name, true]);
      }
      const backups = page.locator('#repo-infra tr.runbook-check[data-name="backups"]');
      expect(await backups.locator('.badge').innerText()).toBe('down');
      expect(await backups.locator('.badge').getAttribute('class')).toContain('critical');
      expect(await backups.locator('.badge').getAttribute('title')).toBe(
        'restic repository locked',
      );
      expect(await backups.locator(`a[href="/sessions/${reported}"]`).isVisible()).toBe(true);
      expect(await text(page, '#repo-infra tr.runbook-check[data-name="media-library"]')).toContain(
        'never reported',
      );

      expect(await text(page, '#repo-media')).toContain(
        'No CLAUDE-OPS.md: sessions see its README: Docker Compose files for Jellyfin',
      );
      const warnings = await page.locator('#repo-broken .runbook-warnings li').allInnerTexts();
      expect(warnings).toEqual([
        expect.stringContaining('broken/CLAUDE-OPS.md:1: no title'),
        expect.stringContaining('broken/CLAUDE-OPS.md:1: no "## Kind" section'),
        expect.stringContaining('broken/.claude-ops/mcp.json:2: not valid JSON'),
      ]);
      expect(await page.locator('#built-in tr.runbook-check[data-name="http"]').isVisible()).toBe(
        true,
      );

      expect(await page.evaluate(FIT)).toEqual([]);
      await page.context().close();
    },
  );
});
