/**
 * Retention: `watchkeeper prune --older-than AGE [--dry-run]` and serve's daily prune delete old
 * sessions with their raw logs, events, the history of memories no longer active and finished
 * notifications; memories themselves, active memories' history, running sessions and
 * notifications still being delivered stay.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { startDailyPrune } from '../../src/cli/commands/prune.js';
import { DAY_MS } from '../../src/clock.js';
import { openStores, type Stores } from '../../src/db/index.js';
import { createLogger } from '../../src/log.js';
import { cliIn } from '../helpers/cli.js';
import { fakeClock } from '../helpers/clock.js';
import { logged } from '../helpers/log-lines.js';
import { seedMemory } from '../helpers/db.js';

const NOW = Date.UTC(2026, 5, 1);
let dataDir: string;
let sessionsDir: string;
let stores: Stores;

/** A finished session started `daysAgo` days before NOW, with its raw log and stderr log. */
async function session(
  daysAgo: number,
  status: 'completed' | 'running' = 'completed',
): Promise<number> {
  const at = NOW - daysAgo * DAY_MS;
  const id = stores.sessions.start({ trigger: 'scheduled', tier: 1, startedAt: at });
  await stores.sessions.setLogPath(id, `sessions/${id}.ndjson`);
  if (status !== 'running') stores.sessions.finish(id, { status, endedAt: at + 60_000 });
  logFile(`${id}.ndjson`, 1000, daysAgo);
  logFile(`${id}.stderr.log`, 24, daysAgo);
  return id;
}

function logFile(name: string, bytes: number, daysAgo: number): string {
  const path = join(sessionsDir, name);
  writeFileSync(path, 'x'.repeat(bytes));
  const at = new Date(NOW - daysAgo * DAY_MS);
  utimesSync(path, at, at);
  return path;
}

function event(daysAgo: number, sessionId: number | null, message: string): number {
  return stores.events.insert({
    sessionId,
    source: 'agent',
    level: 'info',
    service: 'jellyfin',
    message,
    createdAt: NOW - daysAgo * DAY_MS,
  });
}

let ids: Record<string, number>;

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-prune-'));
  sessionsDir = join(dataDir, 'sessions');
  mkdirSync(sessionsDir);
  stores = openStores(join(dataDir, 'watchkeeper.db'));
  const old = await session(200);
  const recent = await session(10);
  const stuck = await session(300, 'running');
  event(200, old, 'old event');
  event(10, old, 'recent event of an old session');
  event(5, recent, 'recent event');
  const clock = { now: () => NOW - 200 * DAY_MS };
  const active = seedMemory(
    { stores, clock },
    { service: 'jellyfin', category: 'timing', observation: 'Takes 60s to start', sessionId: old },
  );
  const retired = seedMemory(
    { stores, clock },
    { service: 'plex', category: 'behavior', observation: 'Buffers on 4K' },
  );
  stores.memories.change([
    {
      id: retired.id,
      action: 'deactivated',
      confidence: 0.2,
      active: false,
      at: NOW - 150 * DAY_MS,
    },
  ]);
  // Notifications: delivered, given up on, still retrying (old), and delivered but recent.
  const notify = async (
    daysAgo: number,
    title: string,
    statuses: ('sent' | 'failed' | 'retrying')[],
  ) => {
    const at = NOW - daysAgo * DAY_MS;
    const { id } = stores.notifications.record(
      {
        kind: 'session_failed',
        level: 'failure',
        service: null,
        title,
        body: title,
        dedupKey: title,
        sessionId: old,
        at,
      },
      null,
    );
    stores.notifications.fanOut(
      id,
      statuses.map((_, i) => ({ targetKey: `ntfy://t${i}`, status: 'pending', lastError: null })),
      at,
    );
    const deliveries = (await stores.notifications.list(100)).find(
      (n) => n.notification.id === id,
    )!;
    deliveries.deliveries.forEach((d, i) =>
      stores.notifications.recordAttempt(d.id, {
        status: statuses[i]!,
        lastError: statuses[i] === 'sent' ? null : 'refused',
        nextAttemptAt: statuses[i] === 'retrying' ? NOW + 60_000 : null,
        at,
      }),
    );
    return id;
  };
  const delivered = await notify(200, 'old delivered', ['sent', 'sent']);
  const abandoned = await notify(150, 'old given up', ['sent', 'failed']);
  const retrying = await notify(200, 'old still retrying', ['sent', 'retrying']);
  const fresh = await notify(5, 'recent delivered', ['sent']);
  ids = {
    old,
    recent,
    stuck,
    active: active.id,
    retired: retired.id,
    delivered,
    abandoned,
    retrying,
    fresh,
  };
  // A log whose session is gone: old ones go, recent ones stay (a session may be starting).
  logFile('999.ndjson', 500, 120);
  logFile('998.ndjson', 500, 1);
});

afterEach(() => {
  stores.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const counts = async () => ({
  sessions: await stores.sessions.count(),
  events: stores.events.list({ limit: 100 }).length,
  memories: await stores.memories.count({ status: 'all' }),
  notifications: (await stores.notifications.list(100)).length,
});

const notificationTitles = async () =>
  (await stores.notifications.list(100)).map((n) => n.notification.title).sort();

describe('watchkeeper prune', () => {
  it('reports on a dry run and deletes nothing', async () => {
    const before = await counts();
    const cli = cliIn(dataDir, fakeClock(NOW));
    const r = await cli.run(['prune', '--older-than', '90d', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      'would prune what is older than 90d (before 2026-03-03 00:00 UTC): 1 session, 1 event, 2 memory history rows, 2 notifications, 3 log files (1.5 KB)\nnothing was deleted (--dry-run)\n',
    );
    expect(await counts()).toEqual(before);
    expect(existsSync(join(sessionsDir, `${ids.old}.ndjson`))).toBe(true);
    expect(existsSync(join(sessionsDir, '999.ndjson'))).toBe(true);
  });

  it("deletes old sessions with their logs, old events and retired memories' history", async () => {
    const cli = cliIn(dataDir, fakeClock(NOW));
    const r = await cli.run(['prune', '--older-than', '90d', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      older_than_ms: 90 * DAY_MS,
      cutoff: '2026-03-03T00:00:00.000Z',
      dry_run: false,
      sessions: 1,
      events: 1,
      memory_history: 2,
      notifications: 2,
      log_files: 3,
      log_bytes: 1524,
    });
    expect(stores.sessions.get(ids.old!)).toBeNull();
    expect(stores.sessions.get(ids.recent!)).not.toBeNull();
    // Running, however old: still being written.
    expect(stores.sessions.get(ids.stuck!)!.status).toBe('running');
    expect(existsSync(join(sessionsDir, `${ids.old}.ndjson`))).toBe(false);
    expect(existsSync(join(sessionsDir, `${ids.old}.stderr.log`))).toBe(false);
    expect(existsSync(join(sessionsDir, `${ids.recent}.ndjson`))).toBe(true);
    expect(existsSync(join(sessionsDir, `${ids.stuck}.ndjson`))).toBe(true);
    expect(existsSync(join(sessionsDir, '999.ndjson'))).toBe(false);
    expect(existsSync(join(sessionsDir, '998.ndjson'))).toBe(true);

    const events = stores.events.list({ limit: 100 });
    expect(events.map((e) => [e.message, e.sessionId])).toEqual([
      ['recent event', ids.recent],
      ['recent event of an old session', null],
    ]);
    // Memories are never deleted; an active one keeps its whole history.
    expect(await stores.memories.count({ status: 'all' })).toBe(2);
    expect(stores.memories.get(ids.active!)!.sessionId).toBeNull();
    expect(stores.memories.history(ids.active!).map((h) => h.action)).toEqual(['created']);
    expect(stores.memories.history(ids.retired!)).toEqual([]);
    // Delivered or given up on and old: gone with their deliveries; a retry still due stays.
    expect(await notificationTitles()).toEqual(['old still retrying', 'recent delivered']);
    expect(
      stores.db
        .prepare(
          'SELECT COUNT(*) AS n FROM notification_deliveries WHERE notification_id IN (?, ?)',
        )
        .get(ids.delivered, ids.abandoned),
    ).toEqual({ n: 0 });

    const again = await cli.run(['prune', '--older-than', '90d']);
    expect(again.stdout).toContain(
      ': 0 sessions, 0 events, 0 memory history rows, 0 notifications, 0 log files (0 B)',
    );
  });

  it('deletes the arrival times kept beside a pruned log, and keeps the ones of a kept log', async () => {
    logFile(`${ids.old}.times`, 16, 200);
    logFile(`${ids.recent}.times`, 16, 10);
    const cli = cliIn(dataDir, fakeClock(NOW));
    expect((await cli.run(['prune', '--older-than', '90d'])).code).toBe(0);
    expect(existsSync(join(sessionsDir, `${ids.old}.times`))).toBe(false);
    expect(existsSync(join(sessionsDir, `${ids.recent}.times`))).toBe(true);
  });

  it('takes its age from WATCHKEEPER_RETENTION', async () => {
    const cli = cliIn(dataDir, fakeClock(NOW), { WATCHKEEPER_RETENTION: '250d' });
    const r = await cli.run(['prune', '--dry-run']);
    expect(r.stdout).toMatch(/^would prune what is older than 250d .*: 0 sessions, 0 events/);
  });

  it('refuses to guess an age', async () => {
    const cli = cliIn(dataDir, fakeClock(NOW));
    const none = await cli.run(['prune']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(
      'give --older-than AGE (such as 90d), or set WATCHKEEPER_RETENTION',
    );
    // A bare number would be seconds: everything.
    const bare = await cli.run(['prune', '--older-than', '90']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain(
      '--older-than must be an age of at least 1d, such as 90d; got "90"',
    );
    expect((await counts()).sessions).toBe(3);
  });
});

describe('the daily prune of serve', () => {
  afterEach(() => vi.useRealTimers());
  // The day is fake; the prune's yields between batches (setImmediate) are real.
  const fakeDays = () =>
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
  /** Lets a prune that has started run to its end. */
  const settle = async () => {
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  };

  it('prunes a minute after start-up and then every day, when retention is set', async () => {
    fakeDays();
    let now = NOW;
    const lines: string[] = [];
    const daily = startDailyPrune({
      stores,
      dataDir,
      sessionsDir,
      retentionMs: 90 * DAY_MS,
      clock: { now: () => now },
      log: createLogger(
        'info',
        (l) => lines.push(l),
        () => now,
      ),
    });
    await vi.advanceTimersByTimeAsync(59_000);
    expect(stores.sessions.get(ids.old!)).not.toBeNull();
    await vi.advanceTimersByTimeAsync(1_000);
    await settle();
    expect(stores.sessions.get(ids.old!)).toBeNull();
    expect(
      logged(lines.join(''), 'retention: pruned what was older than 90d', {
        sessions: 1,
        events: 1,
        notifications: 2,
      }),
    ).toBe(true);

    // 81 days on, the session of 10 days ago is 91 days old.
    now += 81 * DAY_MS;
    await vi.advanceTimersByTimeAsync(DAY_MS);
    await settle();
    expect(stores.sessions.get(ids.recent!)).toBeNull();
    daily.stop();
  });

  it('does nothing when retention is off', async () => {
    fakeDays();
    startDailyPrune({
      stores,
      dataDir,
      sessionsDir,
      retentionMs: null,
      clock: { now: () => NOW },
      log: createLogger('silent', () => {}),
    });
    await vi.advanceTimersByTimeAsync(2 * DAY_MS);
    expect((await counts()).sessions).toBe(3);
  });
});
