// Screenshots for the README, from a real demo run: `watchkeeper serve --demo` (the real Claude
// CLI against the simulated model), signed in through the real login page: the Overview, the
// Sessions list, the Memories, the Overview on a phone (390x844) and a session caught while it
// is live. Needs Debian's chromium-headless-shell. Writes docs/screenshots/*.png.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const OUT = join(ROOT, 'docs/screenshots');
const TOKEN = 'screenshot-token-0123456789';

const port = await new Promise((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
const dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-shots-'));
const serve = spawn(process.execPath, [join(ROOT, 'bin/watchkeeper.js'), 'serve', '--demo'], {
  env: {
    PATH: process.env.PATH,
    HOME: dataDir,
    WATCHKEEPER_DATA_DIR: dataDir,
    WATCHKEEPER_PORT: String(port),
    WATCHKEEPER_AUTH_TOKEN: TOKEN,
    WATCHKEEPER_SCHEDULE: '*/20 * * * * *',
  },
  stdio: ['ignore', 'inherit', 'inherit'],
});
const base = `http://127.0.0.1:${port}`;
const api = async (path) =>
  (await fetch(base + path, { headers: { Authorization: `Bearer ${TOKEN}` } })).json();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const browser = await chromium.launch({
  executablePath: process.env.WATCHKEEPER_CHROMIUM ?? '/usr/bin/chromium-headless-shell',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ],
});
try {
  mkdirSync(OUT, { recursive: true });
  // Two chains (six sessions) for data; the third shows the cooldown block.
  for (let i = 0; i < 600; i += 1) {
    const { sessions } = await api('/api/v1/sessions?limit=10').catch(() => ({ sessions: [] }));
    if (sessions.filter((s) => s.status !== 'running').length >= 6) break;
    await sleep(200);
  }
  const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
  await page.goto(`${base}/login`);
  await page.fill('input[name=token]', TOKEN);
  await page.click('button[type=submit]');
  await page.waitForURL(`${base}/`);
  // The caret is left alone: hiding it leaves a style attribute that the CSP refuses on a swap.
  await page.screenshot({ path: join(OUT, 'overview.png'), caret: 'initial' });
  await page.goto(`${base}/sessions`);
  await page.screenshot({ path: join(OUT, 'sessions.png'), caret: 'initial' });
  await page.goto(`${base}/memories`);
  await page.screenshot({ path: join(OUT, 'memories.png'), caret: 'initial' });
  // A phone: its own context (the sign-in cookie is copied), so the page lays out for its width.
  const phone = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
  });
  await phone.addCookies(await page.context().cookies());
  const phonePage = await phone.newPage();
  await phonePage.goto(`${base}/`);
  await phonePage.screenshot({ path: join(OUT, 'overview-phone.png'), caret: 'initial' });
  await phone.close();
  // Catch the next scheduled session while it runs.
  let live = null;
  for (let i = 0; i < 1500 && !live; i += 1) {
    const { sessions } = await api('/api/v1/sessions?limit=3');
    live = sessions.find((s) => s.status === 'running') ?? null;
    if (!live) await sleep(20);
  }
  if (!live) throw new Error('no live session caught');
  await page.goto(`${base}/sessions/${live.id}`);
  // Caught at its first second the page has nothing to show yet: wait for the stream's lines.
  await page
    .locator('.log .entry')
    .nth(2)
    .waitFor({ timeout: 15_000 })
    .catch(() => {});
  // The stream is below the session's record: bring the section before it into view.
  await page
    .locator('#live-log, #session-log')
    .evaluate((log) => (log.previousElementSibling ?? log).scrollIntoView({ block: 'start' }));
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(OUT, 'session-live.png'), caret: 'initial' });
  console.log(`screenshots in ${OUT}`);
} finally {
  await browser.close();
  serve.kill('SIGTERM');
  await new Promise((r) => serve.on('close', r));
  rmSync(dataDir, { recursive: true, force: true });
}
