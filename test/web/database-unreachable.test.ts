/**
 * The dashboard while the fleet's PostgreSQL is out of reach: pages answer 503 with a page that
 * says so (the address without its password) instead of a stack, the API answers 503 JSON with
 * the `db_unavailable` code, and every page carries a banner while the change feed is cut off.
 * The test has a cluster of its own, stopped and started at will.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config/index.js';
import { openStores, type Stores } from '../../src/db/index.js';
import { createKnowledge } from '../../src/knowledge/index.js';
import { silentLogger } from '../../src/log.js';
import { SessionFeed } from '../../src/runner/live-feed.js';
import { createApp } from '../../src/web/app.js';
import { fakeClock } from '../helpers/clock.js';
import { offConversations } from '../helpers/gateway.js';
import { CLUSTER_PASSWORD, type PgCluster, startPgCluster } from '../helpers/pg-cluster.js';
import { skipWithoutPostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';
import { fakeRunner } from '../helpers/web.js';

skipWithoutPostgres();

let cluster: PgCluster | null = null;
let stores: Stores | null = null;
let dataDir = '';
afterEach(async () => {
  stores?.close();
  stores = null;
  await cluster?.destroy();
  cluster = null;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function dashboard(reachable?: () => boolean) {
  cluster = await startPgCluster();
  await cluster.createDatabase('wk');
  dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-web-outage-'));
  const url = cluster.url('wk');
  stores = openStores(url, { instance: 'local' });
  const clock = fakeClock();
  const knowledge = createKnowledge({ stores, embedder: null, clock });
  const { gateway, conversations } = offConversations({ stores, knowledge, clock });
  const app = createApp({
    config: loadConfig({ WATCHKEEPER_DATA_DIR: dataDir, WATCHKEEPER_DATABASE_URL: url }),
    stores,
    knowledge,
    conversations,
    gateway,
    feed: new SessionFeed(),
    runner: fakeRunner(),
    clock,
    log: silentLogger,
    demo: false,
    secret: randomBytes(32),
    ...(reachable ? { databaseReachable: reachable } : {}),
  });
  const request = (path: string, headers: Record<string, string> = {}) =>
    Promise.resolve(
      app.request(`http://localhost${path}`, { headers: { Host: 'localhost', ...headers } }),
    );
  return { request, redacted: `postgres://wk:***@127.0.0.1:${cluster.port}/wk` };
}

describe('the dashboard while PostgreSQL is unreachable', () => {
  it('answers pages with a 503 page and the API with 503 JSON, the password hidden', async () => {
    let reachable = true;
    const { request, redacted } = await dashboard(() => reachable);
    expect((await request('/sessions')).status).toBe(200);

    await cluster!.stop();
    reachable = false;
    const page = await request('/sessions');
    expect(page.status).toBe(503);
    const html = await page.text();
    expect(html).toContain('The database is unreachable');
    expect(html).toContain(redacted);
    expect(html).toContain('Database unreachable — showing nothing until it returns');
    expect(html).not.toContain(CLUSTER_PASSWORD);
    expect(html).not.toMatch(/at \S+\.ts:\d+/); // no stack

    const api = await request('/api/v1/sessions');
    expect(api.status).toBe(503);
    const body = (await api.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('db_unavailable');
    expect(body.error.message).toContain(redacted);
    expect(body.error.message).not.toContain(CLUSTER_PASSWORD);

    // htmx's refresh gets a short message, not a page.
    const partial = await request('/sessions', { 'HX-Request': 'true' });
    expect(partial.status).toBe(503);
    expect(await partial.text()).toMatch(/^<p class="error" role="alert">PostgreSQL at /);

    await cluster!.start();
    reachable = true;
    const back = await request('/sessions');
    expect(back.status).toBe(200);
    expect(await back.text()).not.toContain('Database unreachable');
  });

  it("shows the banner from the change feed's own view of the connection", async () => {
    const { request } = await dashboard();
    const banner = 'Database unreachable — showing nothing until it returns';
    // The feed reconnects after a pause that grows while the server is away: wait for it.
    const until = (want: boolean) =>
      waitFor(`the banner to ${want ? 'appear' : 'go away'}`, async () => {
        const page = await (await request('/sessions')).text();
        return page.includes(banner) === want && page;
      });
    await until(false);
    await cluster!.stop();
    await until(true);
    await cluster!.start();
    await until(false);
  });
});
