/** The dashboard folds what repeats, so what changed stands out. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { join } from 'node:path';

import { MINUTE_MS } from '../../src/clock.js';
import { openStores, type Stores } from '../../src/db/index.js';
import { webHarness, type WebHarness } from '../helpers/web.js';

let h: WebHarness;
let cookie: string;
beforeEach(async () => {
  h = webHarness();
  ({ cookie } = await h.login());
});
afterEach(() => h.close());

const html = async (path: string) =>
  (await h.request(path, { headers: { Cookie: cookie, 'HX-Request': 'true' } })).text();

const page = async (path: string) =>
  (await h.request(path, { headers: { Cookie: cookie } })).text();

describe('the Overview activity feed', () => {
  it('shows a repeated event once, with its count and first and last seen', async () => {
    const start = Date.UTC(2026, 0, 1, 9, 0);
    for (let i = 0; i < 12; i++) {
      h.stores.events.insert({
        sessionId: null,
        source: 'agent',
        level: 'warning',
        service: 'nas',
        message: 'disk 91% full',
        createdAt: start + i * 5 * MINUTE_MS,
      });
    }
    h.clock.set(start + HOUR);
    const feed = await html('/overview/activity');
    expect(feed.match(/disk 91% full/g)).toHaveLength(1);
    expect(feed).toContain('×12, 09:00–09:55\u00a0UTC');
  });
});

describe('the Cooldowns page', () => {
  it('shows an attempt blocked every minute as one row with its count and first and last seen', async () => {
    const start = Date.UTC(2026, 0, 1, 9, 0);
    h.clock.set(start + HOUR);
    for (let i = 0; i < 30; i++) {
      h.stores.cooldowns.recordBlock({
        service: 'nas',
        actionType: 'restart',
        command: `systemctl restart nas # try ${i}`,
        reason: 'nas is in restart cooldown',
        sessionId: null,
        createdAt: start + i * MINUTE_MS,
      });
    }
    h.stores.cooldowns.recordBlock({
      service: 'web',
      actionType: 'restart',
      command: 'systemctl restart web',
      reason: 'web is in restart cooldown',
      sessionId: null,
      createdAt: start + 45 * MINUTE_MS,
    });
    const body = await html('/cooldowns');
    const blocks = body.slice(body.indexOf('<table id="cooldown-blocks">'));
    const rows = blocks.slice(blocks.indexOf('<tbody>'), blocks.indexOf('</tbody>'));
    expect(rows.match(/<tr>/g)).toHaveLength(2);
    expect(blocks.match(/nas is in restart cooldown/g)).toHaveLength(1);
    // The row shows the newest attempt, with how many and since when.
    expect(blocks).toContain('# try 29');
    expect(blocks).toContain('×30, 09:00–09:29\u00a0UTC');
    expect(blocks).toContain('web is in restart cooldown');
  });
});

describe('instances', () => {
  const event = (stores: Stores, message: string) =>
    stores.events.insert({
      sessionId: null,
      source: 'agent',
      level: 'warning',
      service: 'db',
      message,
      createdAt: h.clock.now(),
    });

  it('names no instance on a lone sidecar, the instance local', async () => {
    event(h.stores, 'seen here');
    h.stores.sessions.start({ trigger: 'scheduled', tier: 1, startedAt: h.clock.now() });
    const events = await page('/events');
    expect(events).toContain('seen here');
    expect(events).not.toContain('<th>Instance</th>');
    expect(events).not.toContain('<select name="instance">');
    const sessions = await page('/sessions');
    expect(sessions).not.toContain('<th>Instance</th>');
    expect(sessions).not.toContain('title="sessions of this instance"');
  });

  it('names them in a fleet: once another instance wrote to the store', async () => {
    event(h.stores, 'seen here');
    const other = openStores(join(h.dataDir, 'watchkeeper.db'), { instance: 'cluster-b' });
    try {
      event(other, 'seen on cluster-b');
    } finally {
      other.close();
    }
    const events = await page('/events');
    expect(events).toContain('<th>Instance</th>');
    expect(events).toContain('<td>cluster-b</td>');
    expect(events).toContain('<td>local</td>');
  });
});

const HOUR = 60 * MINUTE_MS;
