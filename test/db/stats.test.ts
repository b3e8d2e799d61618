import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { DAY_MS, MINUTE_MS } from '../../src/clock.js';
import {
  SESSION_SHUTDOWN_ERROR,
  type SessionStatus,
  type SessionTrigger,
} from '../../src/db/index.js';
import { seedMemory, testApp, type TestApp } from '../helpers/db.js';

let t: TestApp;
beforeEach(() => {
  t = testApp();
});
afterEach(() => t.close());

/** A session started `minutesAgo` before the clock and finished (unless running) a minute later. */
function session(
  status: SessionStatus,
  opts: {
    minutesAgo: number;
    trigger?: SessionTrigger;
    tier?: number;
    parent?: number;
    cost?: number;
    response?: string;
  },
): number {
  const startedAt = t.clock.now() - opts.minutesAgo * MINUTE_MS;
  const id = t.stores.sessions.start({
    trigger: opts.trigger ?? (opts.parent === undefined ? 'scheduled' : 'escalation'),
    tier: opts.tier ?? (opts.parent === undefined ? 1 : 2),
    parentSessionId: opts.parent ?? null,
    startedAt,
  });
  if (status !== 'running') {
    t.stores.sessions.finish(id, {
      status,
      endedAt: startedAt + MINUTE_MS,
      costUsd: opts.cost ?? null,
      response: opts.response ?? null,
    });
  }
  return id;
}

function event(level: 'info' | 'warning' | 'critical', createdAt: number, sessionId?: number) {
  return t.stores.events.insert({
    sessionId: sessionId ?? null,
    source: 'agent',
    level,
    service: 'web',
    message: `${level} at ${createdAt}`,
    createdAt,
  });
}

/** Six runs: two succeeded, two failed, two still running somewhere in their chain. */
function chainsFixture() {
  const a = session('completed', { minutesAgo: 60, trigger: 'manual', cost: 0.1 });
  const b = session('escalated', { minutesAgo: 50, cost: 0.2 });
  const b2 = session('completed', { minutesAgo: 49, parent: b, cost: 0.5 });
  const c = session('failed', { minutesAgo: 40 });
  const d = session('escalated', { minutesAgo: 30, cost: 0.05 });
  const d2 = session('escalated', { minutesAgo: 29, parent: d, cost: 0.1 });
  const d3 = session('failed', { minutesAgo: 28, parent: d2, tier: 3, cost: 0.05 });
  const e = session('running', { minutesAgo: 20 });
  const f = session('escalated', { minutesAgo: 10, cost: 0.25 });
  const f2 = session('running', { minutesAgo: 9, parent: f, tier: 3 });
  return { a, b, b2, c, d, d2, d3, e, f, f2 };
}

describe('stats store counts', () => {
  it('counts root sessions, finished and succeeded chains, escalations and cost', async () => {
    chainsFixture();
    const counts = await t.stores.stats.counts(t.clock.now() - DAY_MS);
    expect(counts).toMatchObject({
      rootSessions: 6,
      finishedChains: 4,
      succeededChains: 2,
      successRate: 0.5,
      escalations: 4,
    });
    expect(counts.totalCostUsd).toBeCloseTo(1.25, 10);
  });

  it('leaves imported transcripts out of the run figures', async () => {
    chainsFixture();
    session('failed', { minutesAgo: 5, trigger: 'import' });
    session('completed', { minutesAgo: 4, trigger: 'import' });
    session('running', { minutesAgo: 3, trigger: 'import' });
    expect(await t.stores.stats.counts(t.clock.now() - DAY_MS)).toMatchObject({
      rootSessions: 6,
      finishedChains: 4,
      succeededChains: 2,
      successRate: 0.5,
      escalations: 4,
    });
  });

  it('has no success rate and zero counts on an empty database', async () => {
    expect(await t.stores.stats.counts(0)).toEqual({
      rootSessions: 0,
      finishedChains: 0,
      succeededChains: 0,
      successRate: null,
      resolvedChains: 0,
      needsHumanChains: 0,
      outcomes: {
        running: 0,
        resolved: 0,
        needs_human: 0,
        failed: 0,
        interrupted: 0,
        shut_down: 0,
        stopped: 0,
      },
      escalations: 0,
      totalCostUsd: 0,
      activeMemories: 0,
      inactiveMemories: 0,
      criticalEvents: 0,
    });
  });

  it('counts active and inactive memories', async () => {
    const ids = ['one', 'two', 'three'].map(
      (o, i) =>
        seedMemory(t, { service: `svc${i}`, category: 'timing', observation: `takes ${o} minute` })
          .id,
    );
    await t.keeper.deactivate([ids[0]!]);
    expect(await t.stores.stats.counts(0)).toMatchObject({
      activeMemories: 2,
      inactiveMemories: 1,
    });
  });

  it('counts critical events at or after `since` only', async () => {
    const now = t.clock.now();
    const since = now - DAY_MS;
    event('critical', since); // exactly 24 h ago: counted
    event('critical', since - 1); // one millisecond earlier: not
    event('critical', now);
    event('warning', now);
    expect((await t.stores.stats.counts(since)).criticalEvents).toBe(2);
  });
});

describe('stats store lastRun', () => {
  it('is null without sessions', async () => {
    expect(await t.stores.stats.lastRun()).toBeNull();
  });

  it("describes the latest root session's chain by its last session", async () => {
    chainsFixture();
    // Make the three-tier chain the latest run.
    t.clock.advance(DAY_MS);
    const latest = session('escalated', { minutesAgo: 5, cost: 0.01 });
    const mid = session('escalated', { minutesAgo: 4, parent: latest, cost: 0.02 });
    const last = session('completed', {
      minutesAgo: 3,
      parent: mid,
      tier: 3,
      cost: 0.03,
      response: 'All services healthy after the restart.',
    });
    const run = (await t.stores.stats.lastRun())!;
    expect(run).toMatchObject({
      rootId: latest,
      rootStatus: 'escalated',
      trigger: 'scheduled',
      lastId: last,
      status: 'completed',
      tierReached: 3,
      sessions: 3,
      startedAt: t.clock.now() - 5 * MINUTE_MS,
      endedAt: t.clock.now() - 2 * MINUTE_MS,
      response: 'All services healthy after the restart.',
      simulated: false,
    });
    expect(run.costUsd).toBeCloseTo(0.06, 10);
  });

  it('is never an imported transcript', async () => {
    const { f } = chainsFixture();
    session('completed', { minutesAgo: 1, trigger: 'import' });
    expect(await t.stores.stats.lastRun()).toMatchObject({ rootId: f, trigger: 'scheduled' });
    const only = testApp();
    try {
      only.stores.sessions.start({ trigger: 'import', tier: 1, startedAt: only.clock.now() });
      expect(await only.stores.stats.lastRun()).toBeNull();
      expect(await only.stores.stats.counts(0)).toMatchObject({
        rootSessions: 0,
        successRate: null,
      });
    } finally {
      only.close();
    }
  });

  it('reports a chain still running as running, with no end', async () => {
    const { f, f2 } = chainsFixture();
    expect(await t.stores.stats.lastRun()).toMatchObject({
      rootId: f,
      lastId: f2,
      status: 'running',
      endedAt: null,
      tierReached: 3,
    });
  });
});

describe('stats store activity', () => {
  it('merges sessions, events and memory changes newest first', async () => {
    const start = t.clock.now();
    const s1 = session('completed', { minutesAgo: 0 }); // at start
    t.clock.advance(MINUTE_MS);
    const e1 = event('warning', t.clock.now(), s1);
    t.clock.advance(MINUTE_MS);
    const m1 = seedMemory(t, { service: 'web', category: 'timing', observation: 'slow start' }).id;
    t.clock.advance(MINUTE_MS);
    const s2 = session('running', { minutesAgo: 0 });
    const e2 = event('critical', t.clock.now(), s2); // same time as s2: the session comes first
    t.clock.advance(MINUTE_MS);
    await t.keeper.update(m1, { active: false });

    const items = await t.stores.stats.activity(40);
    expect(items.map((i) => [i.kind, i.id])).toEqual([
      ['memory', expect.any(Number)],
      ['session', s2],
      ['event', e2],
      ['memory', expect.any(Number)],
      ['event', e1],
      ['session', s1],
    ]);
    expect(items[0]).toMatchObject({
      kind: 'memory',
      memoryId: m1,
      action: 'deactivated',
      service: 'web',
      category: 'timing',
      exists: true,
      at: start + 4 * MINUTE_MS,
    });
    expect(items[3]).toMatchObject({ kind: 'memory', action: 'created', memoryId: m1 });
    expect(items.map((i) => i.at)).toEqual([...items.map((i) => i.at)].sort((a, b) => b - a));
  });

  it('caps the feed, keeps deleted memories unlinked, and leaves decay steps out', async () => {
    const m = seedMemory(t, { service: null, category: 'behavior', observation: 'flaky dns' });
    t.stores.memories.change([
      { id: m.id, action: 'decayed', confidence: 0.6, active: true, at: t.clock.now() + 1 },
    ]);
    t.clock.advance(MINUTE_MS);
    await t.keeper.remove([m.id]);
    for (let i = 0; i < 50; i += 1) event('info', t.clock.now() - 10 * MINUTE_MS - i);

    const items = await t.stores.stats.activity(40);
    expect(items).toHaveLength(40);
    expect(items[0]).toMatchObject({ kind: 'memory', action: 'deleted', exists: false });
    expect(items[1]).toMatchObject({ kind: 'memory', action: 'created', exists: false });
    expect(items.some((i) => i.kind === 'memory' && i.action === 'decayed')).toBe(false);
    expect(items.filter((i) => i.kind === 'event')).toHaveLength(38);
  });
});

describe('stats store eventServices', () => {
  it('lists the distinct services named by events, sorted, without null', async () => {
    for (const service of ['web', 'db', null, 'web', 'cache', 'db']) {
      t.stores.events.insert({
        sessionId: null,
        source: 'agent',
        level: 'info',
        service,
        message: 'x',
        createdAt: t.clock.now(),
      });
    }
    expect(await t.stores.stats.eventServices()).toEqual(['cache', 'db', 'web']);
  });
});

describe('stats store outcomes', () => {
  /** A one-session run that ended `status`, with `error` and these system events on it. */
  function run(status: SessionStatus, error: string | null, systemEvents: string[] = []) {
    const id = session(status, { minutesAgo: 10 });
    if (error !== null) {
      t.stores.sessions.finish(id, { status, endedAt: t.clock.now(), error });
    }
    for (const message of systemEvents) {
      t.stores.events.insert({
        sessionId: id,
        source: 'system',
        level: 'warning',
        service: null,
        message,
        createdAt: t.clock.now(),
      });
    }
    return id;
  }

  it('tells a refused restart, a critical event left, a tier limit and a dry run apart from a resolved run', async () => {
    run('completed', null);
    run('completed', null, ['Blocked restart (cooldown): docker restart jellyfin']);
    const critical = run('completed', null);
    event('critical', t.clock.now(), critical);
    run('completed', null, ['Escalation to tier 3 ignored: the highest tier allowed is 2']);
    run('completed', null, ['Blocked restart (dry run): docker restart jellyfin']);
    run('completed', null, ['Escalation to tier 2 suppressed (dry run): slow']);
    expect(await t.stores.stats.counts(0)).toMatchObject({
      finishedChains: 6,
      succeededChains: 6,
      resolvedChains: 1,
      needsHumanChains: 5,
      outcomes: { resolved: 1, needs_human: 5, failed: 0 },
    });
    const last = (await t.stores.stats.lastRun())!;
    expect(last.status).toBe('completed');
    expect(last.outcome).toEqual({ kind: 'needs_human', reasons: ['dry run'] });
  });

  it('names the reasons of a run whose restart was refused and that reported a critical event', async () => {
    const id = run('completed', null, ['Blocked restart (cooldown): docker restart jellyfin']);
    event('critical', t.clock.now(), id);
    expect((await t.stores.stats.lastRun())!.outcome).toEqual({
      kind: 'needs_human',
      reasons: ['restart refused', 'critical event left'],
    });
  });

  it('tells a shutdown from a stop by the operator, and an interruption and a failure apart', async () => {
    run('stopped', SESSION_SHUTDOWN_ERROR);
    run('stopped', 'stopped by the operator');
    run(
      'interrupted',
      'interrupted: watchkeeper stopped unexpectedly while this session was running',
    );
    run('failed', 'the CLI exited with code 1');
    run('timed_out', 'timed out after 10 min');
    session('running', { minutesAgo: 1 });
    expect((await t.stores.stats.counts(0)).outcomes).toEqual({
      running: 1,
      resolved: 0,
      needs_human: 0,
      failed: 2,
      interrupted: 1,
      shut_down: 1,
      stopped: 1,
    });
  });
});
