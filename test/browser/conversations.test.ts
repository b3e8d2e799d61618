/**
 * The Conversations page in a real browser: a conversation posted over the API with the gateway
 * on the simulated Messages API, its summary chain and extracted memories, a stuck summary
 * highlighted, and the share-with-ops toggle.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createDashboard } from '../../src/cli/dashboard.js';
import { createRuntime, type Runtime } from '../../src/cli/runtime.js';
import { systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { gatewayScript } from '../../src/sim/gateway-jobs.js';
import { type SimulatedModel, startSimulatedModel } from '../../src/sim/messages-api.js';
import { startWebServer, type WebServer } from '../../src/web/server.js';
import { HAVE_CHROMIUM, launchBrowser } from '../helpers/browser.js';
import { TOKEN } from '../helpers/web.js';

let browser: Browser;
let page: Page;
let rt: Runtime;
let web: WebServer;
let sim: SimulatedModel;
let dataDir: string;

const url = (path: string) => new URL(path, web.url).toString();

async function say(id: string, role: string, content: string) {
  const res = await fetch(url(`/api/v1/conversations/${id}/messages`), {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ role, content }),
  });
  expect(res.status).toBe(201);
}

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-browser-'));
  sim = await startSimulatedModel(gatewayScript);
  const config = loadConfig({
    WATCHKEEPER_DATA_DIR: dataDir,
    WATCHKEEPER_AUTH_TOKEN: TOKEN,
    WATCHKEEPER_PORT: '0',
    WATCHKEEPER_SCHEDULE: 'off',
    WATCHKEEPER_EMBEDDINGS: 'off',
    WATCHKEEPER_GATEWAY: 'anthropic',
    WATCHKEEPER_GATEWAY_URL: sim.url,
    WATCHKEEPER_GATEWAY_KEY: 'simulated',
    WATCHKEEPER_EXTRACT_EVERY: '4',
  });
  rt = createRuntime({ config, clock: systemClock, log: silentLogger, env: {} });
  web = await startWebServer(createDashboard(rt, { clock: systemClock, demo: false }), config.web);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
});

afterAll(async () => {
  if (!HAVE_CHROMIUM) return;
  await browser?.close();
  await web?.close();
  await rt?.close();
  await sim?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe.skipIf(!HAVE_CHROMIUM)('Conversations page in a real browser', () => {
  it('shows a conversation with its summary chain, extracted memories and gate decisions', async () => {
    for (let round = 1; round <= 8; round += 1) {
      await say(
        'chat-1',
        'user',
        round === 2 ? 'We decided to move Jellyfin to the NUC.' : `Question ${round}?`,
      );
      await say('chat-1', 'assistant', `Answer ${round}.`);
      await rt.conversations.idle();
    }
    await page.goto(url('/conversations'));
    await page.fill('input[name=token]', TOKEN);
    await page.click('button[type=submit]');
    await page.waitForURL(url('/conversations'));
    const row = page.locator('#conversation-chat-1');
    await expect(row.textContent()).resolves.toMatch(
      /chat-1[\s\S]*conversation:chat-1[\s\S]*16[\s\S]*messages 2-15/,
    );

    await row.locator('a', { hasText: 'chat-1' }).click();
    await page.waitForURL(url('/conversations/chat-1'));
    const chain = await page.locator('#summary-table tbody tr').allTextContents();
    expect(chain).toHaveLength(6);
    expect(chain[0]).toMatch(/#6\s+2-15\s+14\s+#5 \(to 13\)\s+completed/);
    expect(chain[5]).toMatch(/#1\s+0-5\s+6\s+-\s+completed/);
    await expect(page.locator('#latest-summary').textContent()).resolves.toContain(
      '[#15] assistant',
    );
    await expect(page.locator('#memory-table').textContent()).resolves.toContain(
      'We decided to move Jellyfin to the NUC.',
    );
    await expect(page.locator('#gate-table').textContent()).resolves.toMatch(
      /yes[\s\S]*says "decided"/,
    );
  });

  it('highlights a stuck summary', async () => {
    await say('chat-2', 'user', 'Hello?');
    await rt.stores.summaries.claim('chat-2', 0, 0, Date.now() - 10 * 60_000);
    await page.goto(url('/conversations'));
    const alert = page.locator('#stuck-summaries');
    await expect(alert.textContent()).resolves.toMatch(/chat-2 summary #\d+ \(messages 0-0\)/);
    await page.goto(url('/conversations/chat-2'));
    await expect(page.locator('#summary-table tr.stuck').count()).resolves.toBe(1);
  });

  it('shares a scope with ops and stops sharing it', async () => {
    await page.goto(url('/conversations/chat-1'));
    await page.click('form.share-toggle button:has-text("Share with ops")');
    await page.waitForURL(url('/conversations/chat-1'));
    await expect(page.locator('form.share-toggle').textContent()).resolves.toContain(
      'shared with ops',
    );
    expect(await rt.stores.scopes.shared()).toEqual(['conversation:chat-1']);
    // The ops sessions' block now includes the conversation's memories.
    const block = await rt.knowledge.injection.build({ trigger: 'Jellyfin NUC' }, 2000);
    expect(block.text).toContain('We decided to move Jellyfin to the NUC.');
    await page.goto(url('/conversations'));
    await page.locator('#scope-conversation\\:chat-1 button', { hasText: 'Stop sharing' }).click();
    await page.waitForURL(url('/conversations'));
    expect(await rt.stores.scopes.shared()).toEqual([]);
  });
});
