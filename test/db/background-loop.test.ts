/**
 * The background loop every long-running loop goes through: a lost database pauses it (a short
 * connection attempt before each try, pauses doubling up to the loop's period), the process
 * says so once whatever the number of loops and ticks, and when the database answers the loops
 * resume and one system event tells what paused. Other failures are reported and the loop goes
 * on; nothing is thrown out of a timer (vitest fails the run on an unhandled rejection).
 * Timers and the clock are the test's own.
 */
import { afterEach, describe, expect, it } from 'vitest';

import {
  createDatabaseOutage,
  type LoopTimers,
  startBackgroundLoop,
  untilReachable,
} from '../../src/db/index.js';
import { AppError } from '../../src/errors.js';
import type { Logger } from '../../src/log.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';
import { type TestApp, testApp } from '../helpers/db.js';

/** Timers that fire only when the test moves the clock. */
function manualTimers(clock: FakeClock) {
  let pending: { at: number; fn: () => void }[] = [];
  const timers: LoopTimers = {
    after(ms, fn) {
      const t = { at: clock.now() + ms, fn };
      pending.push(t);
      return () => {
        pending = pending.filter((p) => p !== t);
      };
    },
  };
  /** Moves the clock by `ms`, firing what falls due (and letting each round settle). */
  const advance = async (ms: number) => {
    const end = clock.now() + ms;
    for (;;) {
      pending.sort((a, b) => a.at - b.at);
      const next = pending[0];
      if (!next || next.at > end) break;
      pending.shift();
      clock.set(next.at);
      next.fn();
      for (let i = 0; i < 20; i++) await Promise.resolve();
    }
    clock.set(end);
  };
  return { timers, advance, waiting: () => pending.map((p) => p.at - clock.now()) };
}

interface Line {
  level: string;
  msg: string;
  fields: Record<string, unknown>;
}
function recorder(lines: Line[]): Logger {
  const at =
    (level: string) =>
    (msg: string, fields: Record<string, unknown> = {}) =>
      lines.push({ level, msg, fields });
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

const lostDb = () =>
  new AppError('db_unavailable', 'PostgreSQL at postgres://x:***@h/db is unreachable: ECONNRESET');

let app: TestApp | null = null;
afterEach(() => {
  app?.close();
  app = null;
});

describe('a background loop when the database goes away', () => {
  it('pauses with a growing pause, says so once, and resumes with one system event', async () => {
    app = testApp();
    const clock = fakeClock();
    const { timers, advance } = manualTimers(clock);
    const lines: Line[] = [];
    let reachable = true;
    let probes = 0;
    const outage = createDatabaseOutage({
      probe: () => {
        probes += 1;
        return Promise.resolve(reachable);
      },
      clock,
      log: recorder(lines),
      events: app.stores.events,
    });
    const runs = { a: [] as number[], b: [] as number[] };
    const loop = (name: 'a' | 'b', everyMs: number) =>
      startBackgroundLoop({
        name,
        everyMs,
        run: () => {
          runs[name].push(clock.now());
          if (!reachable) throw lostDb();
        },
        onError: (err) => {
          throw err;
        },
        outage,
        timers,
      });
    const a = loop('a', 10_000);
    const b = loop('b', 4_000);
    const t0 = clock.now();
    a.start();
    b.start();
    await advance(10_000);
    expect(runs.a).toEqual([t0 + 10_000]);
    expect(runs.b).toEqual([t0 + 4_000, t0 + 8_000]);

    reachable = false;
    await advance(60_000);
    // b met the outage; then every try, a's too, is a connection attempt first, and no run.
    expect(runs.a).toEqual([t0 + 10_000]);
    expect(runs.b).toEqual([t0 + 4_000, t0 + 8_000, t0 + 12_000]);
    expect(a.paused && b.paused).toBe(true);
    expect(probes).toBeGreaterThan(4);
    const warnings = lines.filter((l) => l.level !== 'debug');
    expect(warnings).toEqual([
      {
        level: 'warn',
        msg: 'the database is unreachable; background work pauses until it returns',
        fields: expect.objectContaining({ loop: 'b' }),
      },
    ]);
    expect(lines.filter((l) => l.msg === 'background loop paused').map((l) => l.fields)).toEqual([
      { loop: 'b' },
      { loop: 'a' },
    ]);

    reachable = true;
    // b's pauses double from 1 s up to its period (4 s): it is back within one period.
    await advance(4_000);
    expect(b.paused).toBe(false);
    await advance(10_000);
    expect(a.paused).toBe(false);
    const back = lines.filter((l) => l.level === 'info');
    expect(back).toHaveLength(1);
    expect(back[0]).toMatchObject({
      msg: 'the database is reachable again; background work resumed',
      fields: { loops: ['a', 'b'] },
    });
    const events = app.stores.events.list({ source: 'system' });
    expect(events).toHaveLength(1);
    expect(events[0]!.message).toMatch(
      /^The database was unreachable for \d+ s \(from .*\): background work \(a, b\) paused and resumed/,
    );
    // Back on its period.
    const before = runs.b.length;
    await advance(8_000);
    expect(runs.b.length).toBe(before + 2);
    await a.stop();
    await b.stop();
  });

  it('does not start a second outage when a loop probes a database that is back but slow', async () => {
    app = testApp();
    const clock = fakeClock();
    const { timers, advance } = manualTimers(clock);
    let reachable = true;
    // Once the outage is over, connection attempts still time out (a busy host): the database
    // answers the loops' own statements all the same.
    let probeAnswers = true;
    const outage = createDatabaseOutage({
      probe: () => Promise.resolve(probeAnswers && reachable),
      clock,
      events: app.stores.events,
    });
    const runs = { a: 0, b: 0 };
    const loop = (name: 'a' | 'b', everyMs: number) =>
      startBackgroundLoop({
        name,
        everyMs,
        run: () => {
          runs[name] += 1;
          if (!reachable) throw lostDb();
        },
        onError: (err) => {
          throw err;
        },
        outage,
        timers,
      });
    const a = loop('a', 10_000);
    const b = loop('b', 1_000);
    a.start();
    b.start();
    reachable = false;
    await advance(40_000);
    expect(a.paused && b.paused).toBe(true);

    reachable = true;
    await advance(1_000);
    // b found it back and recorded the outage; a, on a longer pause, is still waiting.
    expect(b.paused).toBe(false);
    expect(a.paused).toBe(true);
    probeAnswers = false;
    const aRuns = runs.a;
    await advance(30_000);
    expect(a.paused).toBe(false);
    expect(runs.a).toBeGreaterThan(aRuns);
    expect(outage.down).toBe(false);
    expect(app.stores.events.list({ source: 'system' })).toHaveLength(1);
    await a.stop();
    await b.stop();
  });

  it('reports any other failure, a synchronous throw too, and keeps its period', async () => {
    const clock = fakeClock();
    const { timers, advance } = manualTimers(clock);
    const errors: unknown[] = [];
    let n = 0;
    const loop = startBackgroundLoop({
      name: 'x',
      everyMs: 1_000,
      run: () => {
        n += 1;
        if (n % 2 === 1) throw new Error(`bug ${n}`);
        return Promise.reject(new Error(`async bug ${n}`));
      },
      onError: (err) => errors.push((err as Error).message),
      outage: createDatabaseOutage({ probe: () => Promise.resolve(true), clock }),
      timers,
    });
    loop.start();
    await advance(3_000);
    expect(errors).toEqual(['bug 1', 'async bug 2', 'bug 3']);
    expect(loop.paused).toBe(false);
    await loop.stop();
    await advance(5_000);
    expect(n).toBe(3);
  });

  it('lets a waiting job go when the process shuts down', async () => {
    const clock = fakeClock();
    const { timers, advance } = manualTimers(clock);
    const stop = new AbortController();
    const outage = createDatabaseOutage({ probe: () => Promise.resolve(false), clock });
    const waiting = untilReachable(outage, stop.signal, timers);
    await advance(10_000);
    stop.abort();
    expect(await waiting).toBe(false);
  });
});
