/**
 * One dashboard for a browser test file: the real runtime on a fresh data folder, the real server
 * on a loopback port, and a watched browser signed in once through the login form. `pageAt(width)`
 * opens a signed-in page at that width in a context of its own (close it with its context).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Browser, BrowserContext, Page } from 'playwright-core';

import { createDashboard } from '../../src/cli/dashboard.js';
import { createRuntime, type Runtime } from '../../src/cli/runtime.js';
import { systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { startWebServer, type WebServer } from '../../src/web/server.js';
import { launchBrowser } from './browser.js';
import { TOKEN } from './web.js';

export interface BrowserDashboard {
  rt: Runtime;
  web: WebServer;
  browser: Browser;
  dataDir: string;
  url(path: string): string;
  pageAt(width: number, height?: number): Promise<Page>;
  close(): Promise<void>;
}

/** `env` is added to the configuration: no schedule and no embeddings unless it says so. */
export async function startBrowserDashboard(
  env: Record<string, string> = {},
): Promise<BrowserDashboard> {
  const dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-browser-'));
  const config = loadConfig({
    WATCHKEEPER_DATA_DIR: dataDir,
    WATCHKEEPER_AUTH_TOKEN: TOKEN,
    WATCHKEEPER_PORT: '0',
    WATCHKEEPER_SCHEDULE: 'off',
    WATCHKEEPER_EMBEDDINGS: 'off',
    ...env,
  });
  const rt = createRuntime({
    config,
    clock: systemClock,
    log: silentLogger,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dataDir },
  });
  const web = await startWebServer(
    createDashboard(rt, { clock: systemClock, demo: false }),
    config.web,
  );
  const browser = await launchBrowser();
  const url = (path: string) => new URL(path, web.url).toString();
  const login = await browser.newPage();
  await login.goto(url('/login'));
  await login.fill('input[name=token]', TOKEN);
  await login.click('button[type=submit]');
  await login.waitForURL(url('/'));
  const cookies: Awaited<ReturnType<BrowserContext['cookies']>> = await login.context().cookies();
  await login.context().close();
  return {
    rt,
    web,
    browser,
    dataDir,
    url,
    async pageAt(width, height = 900) {
      const context = await browser.newContext({ viewport: { width, height } });
      await context.addCookies(cookies);
      return context.newPage();
    },
    async close() {
      await browser.close();
      await rt.scheduler.shutdown();
      await web.close();
      await rt.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
