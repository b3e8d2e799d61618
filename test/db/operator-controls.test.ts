/**
 * The operator controls in the database and the runner: cooldown resets and allowances as the
 * guard sees them, event groups kept by triggers (with retention's deletes), acknowledgement,
 * full-text search, session filters, and the query plans that keep them fast at 100,000 rows.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { HOUR_MS, MINUTE_MS } from '../../src/clock.js';
import { eventTextQuery, type NewEvent } from '../../src/db/index.js';
import { currentCooldowns } from '../../src/runner/cooldown-now.js';
import { decidePreToolUse } from '../../src/runner/pre-tool-use.js';
import { cooldownRow, testApp, type TestApp } from '../helpers/db.js';

const LIMITS = {
  restart: { limit: 2, windowMs: 4 * HOUR_MS },
  redeployment: { limit: 1, windowMs: 24 * HOUR_MS },
};

let t: TestApp;
beforeEach(() => {
  t = testApp();
});
afterEach(() => t.close());

const restartPayload = (service: string) => ({
  tool_name: 'Bash',
  tool_input: { command: `docker restart ${service}` },
});
const hook = () => ({
  stores: t.stores,
  limits: LIMITS,
  clock: t.clock,
  sessionId: null,
  tier: 3,
});

function restartedAgo(service: string, ...agoMs: number[]) {
  for (const ago of agoMs) {
    t.stores.cooldowns.insert(cooldownRow({ service, createdAt: t.clock.now() - ago }));
  }
}

describe('cooldown overrides', () => {
  it('a reset lets the guard allow a restart it refused, and the actions stay in the history', async () => {
    restartedAgo('jellyfin', 30 * MINUTE_MS, 10 * MINUTE_MS);
    expect((await decidePreToolUse(restartPayload('jellyfin'), hook())).exitCode).toBe(2);

    await t.stores.cooldownOverrides.insert({
      service: 'jellyfin',
      actionType: 'restart',
      kind: 'reset',
      extra: null,
      untilAt: null,
      actor: 'alice (dashboard)',
      reason: 'disk replaced',
      createdAt: t.clock.now(),
      fleetWide: false,
    });
    t.clock.advance(1000);
    expect(currentCooldowns(t.stores, LIMITS, t.clock.now())).toEqual([]);
    expect((await decidePreToolUse(restartPayload('jellyfin'), hook())).exitCode).toBe(0);
    // The two earlier restarts, the refused attempt's none, and the one just let through.
    expect(await t.stores.cooldowns.since(0)).toHaveLength(3);
    expect((await t.stores.cooldownOverrides.recent())[0]).toMatchObject({
      actor: 'alice (dashboard)',
      reason: 'disk replaced',
    });
  });

  it('a reset of one service leaves the others in cooldown', async () => {
    restartedAgo('jellyfin', 20 * MINUTE_MS, 10 * MINUTE_MS);
    restartedAgo('caddy', 20 * MINUTE_MS, 10 * MINUTE_MS);
    await t.stores.cooldownOverrides.insert({
      service: 'jellyfin',
      actionType: null,
      kind: 'reset',
      extra: null,
      untilAt: null,
      actor: 'API token',
      reason: 'fixed',
      createdAt: t.clock.now(),
      fleetWide: false,
    });
    expect((await decidePreToolUse(restartPayload('caddy'), hook())).exitCode).toBe(2);
    expect((await decidePreToolUse(restartPayload('jellyfin'), hook())).exitCode).toBe(0);
  });

  it('an allowance raises the limit until its time, then the limit holds again', async () => {
    restartedAgo('jellyfin', 30 * MINUTE_MS, 10 * MINUTE_MS);
    await t.stores.cooldownOverrides.insert({
      service: 'jellyfin',
      actionType: 'restart',
      kind: 'allow',
      extra: 1,
      untilAt: t.clock.now() + HOUR_MS,
      actor: 'bob (dashboard)',
      reason: 'maintenance window',
      createdAt: t.clock.now(),
      fleetWide: false,
    });
    const [state] = currentCooldowns(t.stores, LIMITS, t.clock.now());
    expect(state).toMatchObject({ count: 2, limit: 3, inCooldown: false });
    expect(state!.allowance).toEqual({ extra: 1, untilAt: t.clock.now() + HOUR_MS });
    // The one allowed restart is let through (and recorded); a fourth is refused.
    expect((await decidePreToolUse(restartPayload('jellyfin'), hook())).exitCode).toBe(0);
    expect((await decidePreToolUse(restartPayload('jellyfin'), hook())).exitCode).toBe(2);
    t.clock.advance(HOUR_MS + 1);
    expect(currentCooldowns(t.stores, LIMITS, t.clock.now())[0]).toMatchObject({
      limit: 2,
      inCooldown: true,
    });
  });
});

function event(over: Partial<NewEvent> = {}): NewEvent {
  return {
    sessionId: null,
    source: 'agent',
    level: 'warning',
    service: 'jellyfin',
    message: '/health took 2.9s',
    createdAt: t.clock.now(),
    ...over,
  };
}

describe('event groups', () => {
  it('counts identical events as one group with first and last seen', () => {
    const first = t.clock.now();
    t.stores.events.insert(event());
    t.clock.advance(MINUTE_MS);
    t.stores.events.insert(event());
    t.stores.events.insert(event({ level: 'critical' }));
    t.stores.events.insert(event({ service: null }));
    t.clock.advance(MINUTE_MS);
    t.stores.events.insert(event());
    const groups = t.stores.eventGroups.list();
    expect(groups).toHaveLength(3);
    expect(groups.find((g) => g.level === 'warning' && g.service === 'jellyfin')).toMatchObject({
      count: 3,
      firstSeen: first,
      lastSeen: first + 2 * MINUTE_MS,
      acked: false,
    });
    expect(groups.find((g) => g.service === null)).toMatchObject({ count: 1 });
  });

  it('one acknowledgement hides the whole group and its events; a new occurrence reopens it', async () => {
    for (let i = 0; i < 5; i += 1) t.stores.events.insert(event());
    t.stores.events.insert(event({ message: 'disk at 91%' }));
    const [group] = t.stores.eventGroups.list({ text: eventTextQuery('health')! });
    t.clock.advance(1000);
    expect(
      await t.stores.eventGroups.acknowledge(group!.id, 'alice (dashboard)', t.clock.now()),
    ).toBe(true);
    expect(t.stores.eventGroups.list().map((g) => g.message)).toEqual(['disk at 91%']);
    expect(t.stores.events.count({ includeAcked: false })).toBe(1);
    expect(t.stores.events.count()).toBe(6);
    const acked = t.stores.eventGroups.list({ includeAcked: true }).find((g) => g.id === group!.id);
    expect(acked).toMatchObject({ acked: true, ackedBy: 'alice (dashboard)', count: 5 });

    t.clock.advance(MINUTE_MS);
    t.stores.events.insert(event());
    expect(t.stores.eventGroups.list().map((g) => g.message)).toContain('/health took 2.9s');
    expect(t.stores.events.count({ includeAcked: false })).toBe(2);
  });

  it('acknowledges many groups at once, or none when one does not exist', async () => {
    t.stores.events.insert(event());
    t.stores.events.insert(event({ message: 'disk at 91%' }));
    const ids = t.stores.eventGroups.list().map((g) => g.id);
    expect(
      await t.stores.eventGroups.acknowledgeAll([...ids, 99999], 'alice', t.clock.now()),
    ).toEqual([99999]);
    expect(t.stores.eventGroups.list()).toHaveLength(2);
    expect(await t.stores.eventGroups.acknowledgeAll(ids, 'alice', t.clock.now())).toEqual([]);
    expect(t.stores.eventGroups.list()).toEqual([]);
  });

  it('retention keeps the counts and first seen true', () => {
    const old = t.clock.now();
    t.stores.events.insert(event({ createdAt: old }));
    t.stores.events.insert(event({ createdAt: old + HOUR_MS }));
    t.stores.events.insert(event({ createdAt: old + 2 * HOUR_MS }));
    t.stores.events.insert(event({ message: 'gone soon', createdAt: old }));
    t.stores.db.prepare('DELETE FROM events WHERE created_at < ?').run(old + 1);
    const groups = t.stores.eventGroups.list({ includeAcked: true });
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({ count: 2, firstSeen: old + HOUR_MS });
    // The search index forgets deleted events too.
    expect(t.stores.events.count({ text: eventTextQuery('gone')! })).toBe(0);
  });
});

describe('event search and ranges', () => {
  it('finds events by word prefixes in message or service, within a time range', () => {
    const start = t.clock.now();
    t.stores.events.insert(event({ message: 'Upstream timed out (502)' }));
    t.stores.events.insert(event({ service: 'postgres', message: 'replication lag 30s' }));
    t.stores.events.insert(
      event({ message: 'Upstream timed out again', createdAt: start + 2 * HOUR_MS }),
    );
    const text = (q: string) => eventTextQuery(q)!;
    expect(t.stores.events.count({ text: text('upstream time') })).toBe(2);
    expect(t.stores.events.count({ text: text('postgr') })).toBe(1);
    expect(
      t.stores.events.list({ text: text('upstream'), from: start + HOUR_MS }).map((e) => e.message),
    ).toEqual(['Upstream timed out again']);
    expect(t.stores.events.count({ text: text('upstream'), to: start + HOUR_MS })).toBe(1);
    // FTS5 syntax in what an operator types is taken as words, not as a query.
    expect(t.stores.events.count({ text: text('"upstream" OR NEAR(') })).toBe(0);
    expect(eventTextQuery('!!! ---')).toBeNull();
  });
});

describe('session filters', () => {
  it('filters by status, trigger, tier and start time, and counts the matches', async () => {
    const at = t.clock.now();
    const start = (trigger: 'manual' | 'alert', tier: number, startedAt: number) =>
      t.stores.sessions.start({ trigger, tier, startedAt });
    const a = start('alert', 1, at);
    start('manual', 2, at + HOUR_MS);
    const c = start('alert', 2, at + 2 * HOUR_MS);
    t.stores.sessions.finish(a, { status: 'failed', endedAt: at + 1000 });
    expect(await t.stores.sessions.count({ trigger: 'alert' })).toBe(2);
    expect(
      t.stores.sessions.list({ filter: { trigger: 'alert', tier: 2 } }).map((s) => s.id),
    ).toEqual([c]);
    expect(t.stores.sessions.list({ filter: { status: 'failed' } }).map((s) => s.id)).toEqual([a]);
    expect(await t.stores.sessions.count({ from: at + HOUR_MS })).toBe(2);
    expect(await t.stores.sessions.count({ from: at + HOUR_MS, to: at + 2 * HOUR_MS })).toBe(1);
  });
});

describe('query plans at 100,000 rows', () => {
  const plan = (sql: string, ...params: unknown[]) =>
    (t.stores.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[])
      .map((r) => r.detail)
      .join('\n');

  it('uses an index (or the full-text index) for every filter, never a scan of the table', (ctx) => {
    // The plans read here are SQLite's (EXPLAIN QUERY PLAN, FTS5 tables).
    if (t.stores.db.engine === 'postgres') ctx.skip("reads SQLite's EXPLAIN QUERY PLAN");
    // One statement each (the triggers of migration 0014 still run for every event).
    t.stores.db
      .exec(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 99999)
      INSERT INTO events (session_id, source, level, service, message, created_at)
      SELECT NULL, 'agent', CASE i % 3 WHEN 0 THEN 'info' WHEN 1 THEN 'warning' ELSE 'critical' END,
        'svc' || (i % 50), 'message ' || (i % 700) || ' from the agent', i * 1000 FROM n`);
    t.stores.db
      .exec(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 99999)
      INSERT INTO sessions (status, trigger, tier, started_at)
      SELECT CASE i % 2 WHEN 0 THEN 'completed' ELSE 'failed' END,
        CASE i % 2 WHEN 0 THEN 'scheduled' ELSE 'alert' END, 1 + (i % 3), i FROM n`);
    t.stores.db.exec('ANALYZE');
    expect(t.stores.events.count()).toBe(100_000);
    // level (3) x message (700) x service (50) repeat together every 2,100 rows.
    expect(t.stores.eventGroups.count({ includeAcked: true })).toBe(2100);

    const scans = [
      plan('SELECT id FROM events WHERE level = ? ORDER BY created_at DESC LIMIT 100', 'info'),
      plan(
        'SELECT COUNT(*) FROM events WHERE id IN (SELECT rowid FROM events_fts WHERE events_fts MATCH ?)',
        '"message"*',
      ),
      plan('SELECT id FROM sessions WHERE trigger = ? ORDER BY id DESC LIMIT 50', 'alert'),
      plan('SELECT COUNT(*) FROM sessions WHERE tier = ?', 2),
      plan('SELECT COUNT(*) FROM sessions WHERE started_at >= ?', 5),
      plan(
        'SELECT id FROM event_groups WHERE (acked_at IS NULL OR acked_at < last_seen) ORDER BY last_seen DESC LIMIT 100',
      ),
    ];
    for (const p of scans) expect(p).not.toMatch(/^SCAN (events|sessions)\b/m);
    expect(scans[1]).toMatch(/events_fts/);
    // Hiding acknowledged events: the acknowledged groups, then their events by index.
    const acked = plan(
      `SELECT COUNT(*) FROM event_groups g
      JOIN events ON events.group_id = g.id AND events.created_at <= g.acked_at
      WHERE g.acked_at IS NOT NULL AND events.level = ?`,
      'info',
    );
    expect(acked).toMatch(/idx_event_groups_acked/);
    expect(acked).toMatch(/SEARCH events USING INDEX idx_events_group/);
  }, 120_000);
});
