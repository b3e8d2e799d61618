/** Session leases: the runner's heartbeat, the sweeper's timer, and a real session's lease fields. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it, vi } from 'vitest';

import { createDatabaseOutage, type ExpiredLease } from '../../src/db/index.js';
import { AppError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import { createLeaseSweeper, leaseTickMs, startHeartbeat } from '../../src/runner/lease.js';
import { fakeClock } from '../helpers/clock.js';
import { type RunnerHarness, runnerHarness } from '../helpers/runner.js';

const LEASE_MS = 60_000;

afterEach(() => {
  vi.useRealTimers();
});

describe('heartbeat', () => {
  it('beats at once, then every quarter of the lease, until stopped', () => {
    vi.useFakeTimers();
    const clock = fakeClock();
    const beats: [number, number][] = [];
    const stop = startHeartbeat({
      sessions: { heartbeat: async (id, at) => (beats.push([id, at]), true) },
      sessionId: 7,
      clock,
      leaseMs: LEASE_MS,
      log: silentLogger,
    });
    const t0 = clock.now();
    expect(beats).toEqual([[7, t0]]);
    clock.advance(15_000);
    vi.advanceTimersByTime(leaseTickMs(LEASE_MS));
    expect(beats).toEqual([
      [7, t0],
      [7, t0 + 15_000],
    ]);
    stop();
    clock.advance(60_000);
    vi.advanceTimersByTime(4 * leaseTickMs(LEASE_MS));
    expect(beats).toHaveLength(2);
  });

  it('keeps beating after a failed write, and says so in the log', async () => {
    vi.useFakeTimers();
    const warnings: string[] = [];
    let calls = 0;
    const stop = startHeartbeat({
      sessions: {
        heartbeat: async () => {
          calls += 1;
          if (calls === 1) throw new Error('database unreachable');
          return true;
        },
      },
      sessionId: 1,
      clock: fakeClock(),
      leaseMs: LEASE_MS,
      log: { ...silentLogger, warn: (m) => warnings.push(m) },
    });
    await vi.advanceTimersByTimeAsync(leaseTickMs(LEASE_MS));
    stop();
    expect(calls).toBe(2);
    expect(warnings).toEqual(['writing the session heartbeat failed']);
  });
});

describe('lease sweeper', () => {
  it('sweeps every quarter of the lease from start() until stop()', async () => {
    vi.useFakeTimers();
    const clock = fakeClock();
    const asked: number[] = [];
    const sweeper = createLeaseSweeper({
      sessions: {
        expireLeases: async (now: number, leaseMs: number): Promise<ExpiredLease[]> => {
          expect(leaseMs).toBe(LEASE_MS);
          asked.push(now);
          return [];
        },
      },
      clock,
      leaseMs: LEASE_MS,
      log: silentLogger,
    });
    sweeper.start();
    expect(asked).toEqual([]);
    await vi.advanceTimersByTimeAsync(leaseTickMs(LEASE_MS) * 2);
    expect(asked).toHaveLength(2);
    await sweeper.stop();
    await vi.advanceTimersByTimeAsync(leaseTickMs(LEASE_MS) * 2);
    expect(asked).toHaveLength(2);
  });

  it('pauses while the database is away, and then gives the heartbeats a lease before judging', async () => {
    vi.useFakeTimers();
    const clock = fakeClock();
    let reachable = true;
    const swept: number[] = [];
    const warnings: string[] = [];
    const sweeper = createLeaseSweeper({
      sessions: {
        expireLeases: async (now: number): Promise<ExpiredLease[]> => {
          if (!reachable) throw new AppError('db_unavailable', 'PostgreSQL is unreachable');
          swept.push(now);
          return [];
        },
      },
      clock,
      leaseMs: LEASE_MS,
      log: { ...silentLogger, warn: (m) => warnings.push(m) },
      outage: createDatabaseOutage({ probe: () => Promise.resolve(reachable), clock }),
    });
    const tick = leaseTickMs(LEASE_MS);
    const step = async (ms: number) => {
      clock.advance(ms);
      await vi.advanceTimersByTimeAsync(ms);
    };
    sweeper.start();
    await step(tick);
    expect(swept).toHaveLength(1);
    reachable = false;
    await step(4 * tick);
    expect(swept).toHaveLength(1);
    // No warning per tick: the outage is the process's to report, once.
    expect(warnings).toEqual([]);
    reachable = true;
    const back = clock.now();
    await step(tick);
    // Back, but no heartbeat could be written while it was away: the first sweep waits a lease.
    expect(swept).toHaveLength(1);
    await step(LEASE_MS + tick);
    expect(swept.length).toBeGreaterThan(1);
    expect(swept[1]).toBeGreaterThanOrEqual(back + LEASE_MS);
    await sweeper.stop();
  });
});

describe('a session run as a named instance', () => {
  let h: RunnerHarness | null = null;
  afterEach(async () => {
    await h?.close();
    h = null;
  });

  it('carries the instance and a heartbeat, and hands the guard the fleet settings', async () => {
    h = runnerHarness({
      WATCHKEEPER_INSTANCE: 'cluster-a',
      WATCHKEEPER_FLEET_COOLDOWN_SERVICES: 'postgres,redis',
    });
    const out = await h.runSession({
      trigger: 'manual',
      tier: 1,
      prompt: 'ok',
      parentSessionId: null,
      handoff: null,
      alert: null,
    });
    const s = h.stores.sessions.get(out.sessionId)!;
    expect(s).toMatchObject({ instance: 'cluster-a', status: 'completed' });
    expect(s.heartbeatAt).toBeGreaterThanOrEqual(s.startedAt);
    const { env } = JSON.parse(
      readFileSync(join(h.dataDir, 'fake-claude', `${out.sessionId}.json`), 'utf8'),
    ) as { env: Record<string, string> };
    expect(env).toMatchObject({
      WATCHKEEPER_INSTANCE: 'cluster-a',
      WATCHKEEPER_FLEET_COOLDOWN_SERVICES: 'postgres,redis',
    });
    expect(env).not.toHaveProperty('WATCHKEEPER_DATABASE_URL');
  });
});
