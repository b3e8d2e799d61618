import { describe, expect, it } from 'vitest';

import { isAppError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import type { ChainOutcome, ChainRequest } from '../../src/runner/chain.js';
import { createScheduler } from '../../src/runner/scheduler.js';
import { runnerHarness } from '../helpers/runner.js';

/** A chain that runs until released (or aborted), recording how many run at once. */
function gatedChains() {
  const releases: (() => void)[] = [];
  let running = 0;
  let maxRunning = 0;
  const started: ChainRequest[] = [];
  const runChain = async (
    req: ChainRequest,
    signal?: AbortSignal,
    onSession?: (id: number) => void,
  ): Promise<ChainOutcome> => {
    started.push(req);
    running += 1;
    maxRunning = Math.max(maxRunning, running);
    onSession?.(started.length);
    await new Promise<void>((resolve) => {
      releases.push(resolve);
      signal?.addEventListener('abort', () => resolve(), { once: true });
    });
    running -= 1;
    return { sessionIds: [started.length], status: signal?.aborted ? 'stopped' : 'completed' };
  };
  return { runChain, releases, started, maxRunning: () => maxRunning };
}

const manual: ChainRequest = { trigger: 'manual', startTier: 1, prompt: null, alert: null };
const tick = () => new Promise((r) => setTimeout(r, 0));
/** Polls until `done` holds; a chain that never ends fails the test by its timeout. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 20));
}

describe('scheduler', () => {
  it('takes 20 triggers during a running chain without hanging, refusing those past the queue bound', async () => {
    const g = gatedChains();
    const s = createScheduler({
      runChain: g.runChain,
      queueSize: 5,
      schedule: null,
      log: silentLogger,
    });
    const first = s.trigger(manual);
    await tick();
    expect(first.state).toBe('running');
    const accepted: string[] = [];
    const refused: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      try {
        accepted.push(s.trigger({ ...manual, trigger: 'api' }).id);
      } catch (err) {
        expect(isAppError(err) && err.code === 'busy').toBe(true);
        refused.push((err as Error).message);
      }
    }
    expect(accepted).toHaveLength(5);
    expect(refused).toHaveLength(15);
    expect(refused[0]).toMatch(/the run queue is full \(5 waiting, one running\)/);
    expect(s.status().queued).toEqual(accepted);
    // Release them one by one: never two chains at once, in order.
    for (let i = 0; i < 6; i += 1) {
      await tick();
      g.releases.shift()!();
    }
    await tick();
    await tick();
    expect(g.started).toHaveLength(6);
    expect(g.maxRunning()).toBe(1);
    expect(s.ticket(accepted[4]!)).toMatchObject({ state: 'done', sessionIds: [6] });
  });

  it('skips a scheduled tick while the previous scheduled chain is still going', async () => {
    const g = gatedChains();
    const s = createScheduler({
      runChain: g.runChain,
      queueSize: 5,
      schedule: null,
      log: silentLogger,
    });
    expect(s.tick()).not.toBeNull();
    expect(s.tick()).toBeNull();
    s.trigger(manual);
    expect(s.status().queued).toHaveLength(1);
    g.releases.shift()!();
    await s.shutdown();
  });

  it('stops the running chain on request, and on shutdown drops the queue and waits for the end', async () => {
    const g = gatedChains();
    const s = createScheduler({
      runChain: g.runChain,
      queueSize: 5,
      schedule: null,
      log: silentLogger,
    });
    const a = s.trigger(manual);
    const b = s.trigger(manual);
    await tick();
    expect(s.stopCurrent()).toBe(true);
    await tick();
    await tick();
    expect(a.outcome?.status).toBe('stopped');
    expect(b.state).toBe('running');
    const c = s.trigger(manual);
    await s.shutdown();
    expect(b.outcome?.status).toBe('stopped');
    expect(c).toMatchObject({
      state: 'failed',
      error: 'watchkeeper shut down before this run started',
    });
    expect(() => s.trigger(manual)).toThrow(/shutting down/);
  });

  it('tells who waits on a run when it ends: done, cancelled in the queue, or dropped at shutdown', async () => {
    const g = gatedChains();
    const s = createScheduler({
      runChain: g.runChain,
      queueSize: 5,
      schedule: null,
      log: silentLogger,
    });
    const running = s.trigger(manual);
    const cancelled = s.trigger(manual);
    const dropped = s.trigger(manual);
    const ends: string[] = [];
    for (const [name, t] of Object.entries({ running, cancelled, dropped })) {
      void s
        .settled(t.id)
        .then((ended) => ends.push(`${name}: ${ended === t ? ended.state : '?'}`));
    }
    s.cancel(cancelled.id, 'the operator');
    await tick();
    expect(ends).toEqual(['cancelled: cancelled']);
    await s.shutdown();
    await tick();
    expect(ends).toEqual(['cancelled: cancelled', 'dropped: failed', 'running: done']);
    // An ended run, and a request never made, answer at once.
    expect((await s.settled(running.id))?.state).toBe('done');
    expect(await s.settled('no-such-request')).toBeNull();
  });

  it('accepts only valid cron schedules through the config', async () => {
    const { loadConfig } = await import('../../src/config/index.js');
    expect(loadConfig({ WATCHKEEPER_SCHEDULE: '*/5 * * * *' }).runner.schedule).toBe('*/5 * * * *');
    expect(loadConfig({ WATCHKEEPER_SCHEDULE: 'off' }).runner.schedule).toBeNull();
    expect(() => loadConfig({ WATCHKEEPER_SCHEDULE: 'every hour' })).toThrow(
      /WATCHKEEPER_SCHEDULE="every hour": expected a cron expression/,
    );
    expect(() => loadConfig({ CLAUDEOPS_SESSION_TIMEOUT: 'soon' })).toThrow(
      /CLAUDEOPS_SESSION_TIMEOUT="soon"/,
    );
  });

  it('reads the cron schedule in WATCHKEEPER_TZ, and refuses a zone that does not exist', async () => {
    const { loadConfig } = await import('../../src/config/index.js');
    const config = loadConfig({ WATCHKEEPER_SCHEDULE: '0 3 * * *', WATCHKEEPER_TZ: 'Asia/Tokyo' });
    expect(config.timeZone).toBe('Asia/Tokyo');
    const s = createScheduler({
      runChain: gatedChains().runChain,
      queueSize: 1,
      schedule: config.runner.schedule,
      timeZone: config.timeZone,
      log: silentLogger,
    });
    s.start();
    // 03:00 in Tokyo (UTC+9, no daylight saving) is 18:00 UTC, whatever zone this machine is in.
    const next = new Date(s.status().nextRunAt!);
    expect([next.getUTCHours(), next.getUTCMinutes()]).toEqual([18, 0]);
    await s.shutdown();
    expect(() => loadConfig({ WATCHKEEPER_TZ: 'Mars/Olympus_Mons' })).toThrow(
      /WATCHKEEPER_TZ="Mars\/Olympus_Mons": expected an IANA time zone/,
    );
    expect(loadConfig({}).timeZone).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
  });

  it('keeps draining the queue after a chain whose CLI cannot be spawned, and still shuts down', async () => {
    // Tier 1's arguments are over exec's 128 KiB limit (E2BIG); tier 2's are fine.
    const h = runnerHarness({ WATCHKEEPER_TIER1_ALLOWED_TOOLS: `Bash,${'x'.repeat(200 * 1024)}` });
    try {
      const s = createScheduler({
        runChain: h.runChain,
        queueSize: 5,
        schedule: null,
        log: silentLogger,
      });
      const failing = s.trigger({ ...manual, prompt: 'ok' });
      const next = s.trigger({ ...manual, startTier: 2, prompt: 'ok' });
      await until(() => next.state === 'done');
      expect(failing).toMatchObject({ state: 'done', outcome: { status: 'failed' } });
      expect(next.outcome?.status).toBe('completed');
      expect(h.stores.sessions.list().map((r) => r.status)).toEqual(['completed', 'failed']);
      await s.shutdown();
      expect(() => s.trigger(manual)).toThrow(/shutting down/);
    } finally {
      await h.close();
    }
  });
});
