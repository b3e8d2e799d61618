/**
 * Two instances on one database (two store sets on one file, or one PostgreSQL database in the
 * postgres project): what each writes carries its name, each finds only its own running sessions,
 * the lease ends a silent instance's sessions, cooldowns and the operators' overrides count per
 * instance except on shared services or when declared fleet-wide, and the lists filter by
 * instance.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { HOUR_MS, MINUTE_MS } from '../../src/clock.js';
import { loadConfig } from '../../src/config/index.js';
import { type NewCooldownOverride, openStores, type Stores } from '../../src/db/index.js';
import { silentLogger } from '../../src/log.js';
import type { RunnerAlert } from '../../src/runner/alerts.js';
import { currentCooldowns } from '../../src/runner/cooldown-now.js';
import { createLeaseSweeper } from '../../src/runner/lease.js';
import { decidePreToolUse } from '../../src/runner/pre-tool-use.js';
import { recoverInterruptedSessions } from '../../src/runner/recovery.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';
import { cooldownRow, migratedSqliteFile } from '../helpers/db.js';
import { blockingDuring, migratedDatabaseSync } from '../helpers/postgres.js';

const LEASE_MS = 60_000;

interface Fleet {
  a: Stores;
  b: Stores;
  clock: FakeClock;
  dataDir: string;
  close(): void;
}

/** cluster-a and cluster-b on one store. */
function fleetOfTwo(): Fleet {
  const dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-fleet-'));
  let target = join(dataDir, 'watchkeeper.db');
  let drop = () => {};
  if (process.env.WATCHKEEPER_TEST_ENGINE === 'postgres') {
    const database = migratedDatabaseSync();
    target = database.url;
    drop = database.drop;
  } else {
    migratedSqliteFile(target);
  }
  const a = openStores(target, { instance: 'cluster-a' });
  const b = openStores(target, { instance: 'cluster-b' });
  return {
    a,
    b,
    clock: fakeClock(),
    dataDir,
    close: () => {
      a.close();
      b.close();
      drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

let f: Fleet;
beforeEach(() => {
  f = fleetOfTwo();
});
afterEach(() => f.close());

const start = (stores: Stores, startedAt: number) =>
  stores.sessions.start({ trigger: 'scheduled', tier: 1, startedAt });

describe('instances on sessions, events and cooldown actions', () => {
  it('stamps what each instance writes with its name', async () => {
    const sa = start(f.a, f.clock.now());
    const sb = start(f.b, f.clock.now());
    f.a.events.insert({
      sessionId: sa,
      source: 'agent',
      level: 'warning',
      service: 'db',
      message: 'slow queries',
      createdAt: f.clock.now(),
    });
    f.b.cooldowns.insert(cooldownRow({ sessionId: sb, createdAt: f.clock.now() }));
    f.b.cooldowns.report({
      service: 'web',
      actionType: 'restart',
      success: true,
      message: null,
      tier: 1,
      sessionId: sb,
      createdAt: f.clock.now(),
    });

    expect(f.b.sessions.get(sa)).toMatchObject({ instance: 'cluster-a' });
    expect(f.a.sessions.get(sb)).toMatchObject({ instance: 'cluster-b' });
    expect(f.b.events.list().map((e) => e.instance)).toEqual(['cluster-a']);
    expect((await f.a.cooldowns.since(0)).map((c) => [c.service, c.instance])).toEqual([
      ['web', 'cluster-b'],
      ['jellyfin', 'cluster-b'],
    ]);
  });

  it('gives each runner only its own running sessions, and recovers only its own', async () => {
    const sa = start(f.a, f.clock.now());
    const sb = start(f.b, f.clock.now());
    expect(f.a.sessions.running()).toEqual([{ id: sa, pgid: null }]);
    expect(f.b.sessions.running()).toEqual([{ id: sb, pgid: null }]);
    // Neither can end the other's session, nor beat for it.
    expect(f.a.sessions.markInterrupted(sb, f.clock.now(), 'not mine')).toBe(false);
    expect(await f.a.sessions.heartbeat(sb, f.clock.now())).toBe(false);

    const recovered = await recoverInterruptedSessions({
      sessions: f.a.sessions,
      dataDir: f.dataDir,
      killGraceMs: 1000,
      now: () => f.clock.now(),
      log: silentLogger,
    });
    expect(recovered.map((r) => r.sessionId)).toEqual([sa]);
    expect(f.b.sessions.get(sa)).toMatchObject({ status: 'interrupted' });
    expect(f.a.sessions.get(sb)).toMatchObject({ status: 'running', error: null });
  });

  it('marks a silent instance’s running session interrupted once its lease expires, and once only', async () => {
    const t0 = f.clock.now();
    const stale = start(f.a, t0);
    f.clock.advance(LEASE_MS / 2);
    const fresh = start(f.a, f.clock.now());
    const own = start(f.b, f.clock.now());

    const alerts: RunnerAlert[] = [];
    const sweeper = (stores: Stores) =>
      createLeaseSweeper({
        sessions: stores.sessions,
        clock: f.clock,
        leaseMs: LEASE_MS,
        log: silentLogger,
        onAlert: (a) => alerts.push(a),
      });
    const bSweeper = sweeper(f.b);
    expect(await bSweeper.sweep()).toEqual([]); // every lease still runs

    // cluster-a stops beating; cluster-b keeps beating for its own session.
    f.clock.set(t0 + LEASE_MS + 1);
    expect(await f.b.sessions.heartbeat(own, f.clock.now())).toBe(true);
    expect(await bSweeper.sweep()).toEqual([
      {
        sessionId: stale,
        instance: 'cluster-a',
        lastBeatAt: t0,
        expiredAt: t0 + LEASE_MS,
        error:
          'interrupted: instance cluster-a stopped sending heartbeats; ' +
          `lease expired at ${new Date(t0 + LEASE_MS).toISOString()}`,
      },
    ]);
    expect(f.a.sessions.get(stale)).toMatchObject({
      status: 'interrupted',
      endedAt: t0 + LEASE_MS + 1,
    });
    expect(f.a.sessions.get(fresh)).toMatchObject({ status: 'running' });
    // A second sweeper (cluster-a come back, or a third instance) finds nothing left to do.
    expect(await sweeper(f.a).sweep()).toEqual([]);
    expect(await bSweeper.sweep()).toEqual([]);
    expect(alerts).toEqual([
      expect.objectContaining({ kind: 'session_ended', status: 'interrupted', sessionId: stale }),
    ]);

    // A heartbeat keeps the lease: the fresh session lives as long as it beats.
    f.clock.set(t0 + LEASE_MS + LEASE_MS / 4);
    expect(await f.a.sessions.heartbeat(fresh, f.clock.now())).toBe(true);
    expect(await f.b.sessions.heartbeat(own, f.clock.now() + LEASE_MS)).toBe(true);
    f.clock.advance(LEASE_MS - 1);
    expect(await bSweeper.sweep()).toEqual([]);
    f.clock.advance(2);
    // Swept on serve's event loop every quarter lease: it holds it for no statement.
    let swept: number[] = [];
    const blocked = await blockingDuring(f.b.db, async () => {
      swept = (await bSweeper.sweep()).map((e) => e.sessionId);
    });
    expect({ swept, blocked }).toEqual({ swept: [fresh], blocked: 0 });
    // The late heartbeat of an ended session changes nothing.
    expect(await f.a.sessions.heartbeat(fresh, f.clock.now())).toBe(false);
    expect(f.b.sessions.get(own)).toMatchObject({ status: 'running' });
  });

  it('runs the lease of a session that never beat from its start', async () => {
    const id = start(f.a, f.clock.now());
    // As a row written before heartbeats existed.
    f.a.db.prepare('UPDATE sessions SET heartbeat_at = NULL WHERE id = ?').run(id);
    f.clock.advance(LEASE_MS);
    expect(await f.b.sessions.expireLeases(f.clock.now(), LEASE_MS)).toEqual([]);
    f.clock.advance(1);
    expect(await f.b.sessions.expireLeases(f.clock.now(), LEASE_MS)).toMatchObject([
      { sessionId: id, instance: 'cluster-a' },
    ]);
  });
});

describe('cooldowns across instances', () => {
  const limits = loadConfig({}).cooldowns; // 2 restarts per 4h
  const restart = (stores: Stores, service: string) =>
    stores.cooldowns.insert(cooldownRow({ service, createdAt: f.clock.now() - MINUTE_MS }));
  const bash = (command: string) => ({
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command },
    tool_use_id: 't',
  });
  const decide = (stores: Stores, command: string, shared: string[] = []) =>
    decidePreToolUse(bash(command), {
      stores,
      limits,
      clock: f.clock,
      sessionId: null,
      tier: 3,
      sharedServices: shared,
    });

  it('counts each instance’s restarts of a service against its own limit', async () => {
    restart(f.a, 'jellyfin');
    restart(f.a, 'jellyfin');
    expect(currentCooldowns(f.a, limits, f.clock.now())).toMatchObject([
      { service: 'jellyfin', count: 2, inCooldown: true },
    ]);
    expect(currentCooldowns(f.b, limits, f.clock.now())).toEqual([]);
    expect((await decide(f.a, 'docker restart jellyfin')).exitCode).toBe(2);
    expect((await decide(f.b, 'docker restart jellyfin')).exitCode).toBe(0);
  });

  it('counts every instance’s restarts of a shared service, and says who used the limit', async () => {
    restart(f.a, 'postgres');
    expect((await decide(f.a, 'systemctl restart postgres', ['postgres'])).exitCode).toBe(0);
    expect(currentCooldowns(f.b, limits, f.clock.now(), ['postgres'])).toMatchObject([
      {
        service: 'postgres',
        count: 2,
        inCooldown: true,
        fleet: [{ instance: 'cluster-a', count: 2 }],
      },
    ]);
    const refused = await decide(f.b, 'systemctl restart postgres', ['postgres']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(
      /^watchkeeper: postgres is in restart cooldown \(2 of 2 allowed in 4h across the fleet, shared by every instance; used by instance cluster-a \(2\); next allowed after /,
    );
    // Not shared: the same history leaves cluster-b free.
    expect((await decide(f.b, 'systemctl restart postgres')).exitCode).toBe(0);
    // Its own restart now counts on cluster-a's shared limit too.
    f.clock.advance(4 * HOUR_MS - 2 * MINUTE_MS);
    expect(currentCooldowns(f.a, limits, f.clock.now(), ['postgres'])).toMatchObject([
      {
        service: 'postgres',
        count: 3,
        fleet: [
          { instance: 'cluster-a', count: 2 },
          { instance: 'cluster-b', count: 1 },
        ],
      },
    ]);
  });

  const override = (
    stores: Stores,
    o: { service: string; kind: 'reset' | 'allow' } & Partial<NewCooldownOverride>,
  ) =>
    stores.cooldownOverrides.insert({
      actionType: null,
      extra: o.kind === 'allow' ? 1 : null,
      untilAt: o.kind === 'allow' ? f.clock.now() + HOUR_MS : null,
      actor: 'operator',
      reason: 'checked by hand',
      createdAt: f.clock.now(),
      fleetWide: false,
      ...o,
    });

  it('applies an operator’s reset or allowance to the instance it was made on', async () => {
    for (const stores of [f.a, f.b]) {
      restart(stores, 'jellyfin');
      restart(stores, 'jellyfin');
    }
    await override(f.a, { service: 'jellyfin', kind: 'reset' });
    expect(currentCooldowns(f.a, limits, f.clock.now())).toEqual([]);
    expect((await decide(f.a, 'docker restart jellyfin')).exitCode).toBe(0);
    // cluster-b's restarts still count: its guard refuses.
    expect(currentCooldowns(f.b, limits, f.clock.now())).toMatchObject([
      { service: 'jellyfin', count: 2, inCooldown: true },
    ]);
    expect((await decide(f.b, 'docker restart jellyfin')).exitCode).toBe(2);

    await override(f.b, { service: 'jellyfin', kind: 'allow' });
    expect(currentCooldowns(f.b, limits, f.clock.now())).toMatchObject([
      { service: 'jellyfin', count: 2, inCooldown: false, allowance: { extra: 1 } },
    ]);
    expect((await decide(f.b, 'docker restart jellyfin')).exitCode).toBe(0);
    // Both instances list both overrides, each with the instance it is for.
    expect((await f.a.cooldownOverrides.recent()).map((o) => [o.kind, o.instance])).toEqual([
      ['allow', 'cluster-b'],
      ['reset', 'cluster-a'],
    ]);
  });

  it('applies a fleet-wide override, and any override of a shared service, to every instance', async () => {
    for (const stores of [f.a, f.b]) {
      restart(stores, 'jellyfin');
      restart(stores, 'jellyfin');
    }
    await override(f.a, { service: 'jellyfin', kind: 'reset', fleetWide: true });
    expect((await f.b.cooldownOverrides.recent())[0]).toMatchObject({ instance: null });
    for (const stores of [f.a, f.b]) {
      expect(currentCooldowns(stores, limits, f.clock.now())).toEqual([]);
      expect((await decide(stores, 'docker restart jellyfin')).exitCode).toBe(0);
    }

    // postgres's limit is the fleet's: cluster-a's allowance (its own, not declared fleet-wide)
    // raises it for cluster-b too.
    restart(f.a, 'postgres');
    restart(f.b, 'postgres');
    expect((await decide(f.b, 'systemctl restart postgres', ['postgres'])).exitCode).toBe(2);
    await override(f.a, { service: 'postgres', kind: 'allow' });
    expect(currentCooldowns(f.b, limits, f.clock.now(), ['postgres'])).toMatchObject([
      { service: 'postgres', count: 2, inCooldown: false, allowance: { extra: 1 } },
    ]);
    expect((await decide(f.b, 'systemctl restart postgres', ['postgres'])).exitCode).toBe(0);
    // Not shared, the same allowance is cluster-a's alone: cluster-b's two restarts (the one
    // just let through among them) are at its own limit.
    const [own] = currentCooldowns(f.b, limits, f.clock.now());
    expect(own).toMatchObject({ service: 'postgres', count: 2, inCooldown: true });
    expect(own).not.toHaveProperty('allowance');
  });
});

describe('lists by instance', () => {
  it('filters sessions and events by instance and lists the instances', async () => {
    const sa = start(f.a, f.clock.now());
    start(f.b, f.clock.now());
    start(f.b, f.clock.now());
    const event = (stores: Stores, message: string) =>
      stores.events.insert({
        sessionId: null,
        source: 'system',
        level: 'info',
        service: null,
        message,
        createdAt: f.clock.now(),
      });
    event(f.a, 'from a');
    event(f.b, 'from b');

    expect(f.a.sessions.list({ filter: { instance: 'cluster-a' } }).map((s) => s.id)).toEqual([sa]);
    expect(await f.a.sessions.count({ instance: 'cluster-b' })).toBe(2);
    expect(await f.a.sessions.count({ instance: 'cluster-c' })).toBe(0);
    expect(await f.a.sessions.count()).toBe(3);
    expect(f.b.events.list({ instance: 'cluster-a' }).map((e) => e.message)).toEqual(['from a']);
    expect(f.b.events.count({ instance: 'cluster-b' })).toBe(1);
    expect(f.a.sessions.instances()).toEqual(['cluster-a', 'cluster-b']);
    expect(f.a.events.instances()).toEqual(['cluster-a', 'cluster-b']);
  });

  it('groups one instance’s events over its own occurrences alone', () => {
    const at = f.clock.now();
    const raise = (stores: Stores, offset: number, message = 'disk full') =>
      stores.events.insert({
        sessionId: null,
        source: 'agent',
        level: 'warning',
        service: 'nas',
        message,
        createdAt: at + offset,
      });
    raise(f.a, 0);
    raise(f.b, 10);
    raise(f.b, 20);
    raise(f.b, 30, 'fan loud');
    const shape = (g: { message: string; count: number; firstSeen: number; lastSeen: number }) => [
      g.message,
      g.count,
      g.firstSeen - at,
      g.lastSeen - at,
    ];
    expect(f.a.eventGroups.list().map(shape)).toEqual([
      ['fan loud', 1, 30, 30],
      ['disk full', 3, 0, 20],
    ]);
    expect(f.a.eventGroups.list({ instance: 'cluster-b' }).map(shape)).toEqual([
      ['fan loud', 1, 30, 30],
      ['disk full', 2, 10, 20],
    ]);
    expect(f.a.eventGroups.list({ instance: 'cluster-a' }).map(shape)).toEqual([
      ['disk full', 1, 0, 0],
    ]);
    expect(f.a.eventGroups.count({ instance: 'cluster-b', from: at + 25 })).toBe(1);
    expect(f.a.eventGroups.count({ instance: 'cluster-c' })).toBe(0);
  });
});
