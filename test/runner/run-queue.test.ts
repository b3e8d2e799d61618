/** The run queue's operator controls: cancelling a queued run, and one run for a repeated alert. */
import { describe, expect, it } from 'vitest';

import { silentLogger } from '../../src/log.js';
import type { ChainOutcome, ChainRequest } from '../../src/runner/chain.js';
import { createScheduler, type RunTicket } from '../../src/runner/scheduler.js';

/** Chains that run until released, each reporting one session id as it starts. */
function gatedChains() {
  const releases: (() => void)[] = [];
  const started: ChainRequest[] = [];
  const runChain = async (
    req: ChainRequest,
    signal?: AbortSignal,
    onSession?: (id: number) => void,
  ): Promise<ChainOutcome> => {
    started.push(req);
    onSession?.(100 + started.length);
    await new Promise<void>((resolve) => {
      releases.push(resolve);
      signal?.addEventListener('abort', () => resolve(), { once: true });
    });
    return { sessionIds: [100 + started.length], status: 'completed' };
  };
  return { runChain, releases, started };
}

const manual: ChainRequest = { trigger: 'manual', startTier: 1, prompt: null, alert: null };
const alert = (text: string): ChainRequest => ({
  trigger: 'alert',
  startTier: 1,
  prompt: null,
  alert: text,
});
const tick = () => new Promise((r) => setTimeout(r, 0));
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 10));
}

function scheduler(extra: { now?: () => number; alertDedupMs?: number } = {}) {
  const g = gatedChains();
  const repeats: [string, number, number[]][] = [];
  const s = createScheduler({
    runChain: g.runChain,
    queueSize: 5,
    schedule: null,
    log: silentLogger,
    onRepeats: (t: RunTicket) => repeats.push([t.id, t.repeats, [...t.sessionIds]]),
    ...extra,
  });
  return { s, g, repeats };
}

describe('cancelling a queued run', () => {
  it('takes it out of the queue with who did it; the next one runs instead', async () => {
    const { s, g } = scheduler();
    s.trigger(manual);
    await tick();
    const doomed = s.trigger({ ...manual, prompt: 'doomed' });
    const kept = s.trigger({ ...manual, prompt: 'kept' });
    expect(s.queue().queued.map((t) => t.id)).toEqual([doomed.id, kept.id]);

    expect(s.cancel(doomed.id, 'alice (dashboard)')).toMatchObject({ outcome: 'cancelled' });
    expect(doomed).toMatchObject({ state: 'cancelled', cancelledBy: 'alice (dashboard)' });
    expect(s.queue().queued.map((t) => t.id)).toEqual([kept.id]);

    g.releases[0]!();
    await until(() => g.started.length === 2);
    expect(g.started.map((r) => r.prompt)).toEqual([null, 'kept']);
    g.releases[1]!();
  });

  it('refuses a run that already started, and an unknown request', async () => {
    const { s, g } = scheduler();
    const running = s.trigger(manual);
    await tick();
    expect(s.cancel(running.id, 'bob')).toMatchObject({ outcome: 'not_queued' });
    expect(running.state).toBe('running');
    expect(s.cancel('no-such-request', 'bob')).toEqual({ outcome: 'not_found', ticket: null });
    g.releases[0]!();
  });
});

describe('alert de-duplication', () => {
  it('queues one run for the same alert text within the window and counts the rest', async () => {
    let now = 1_000_000;
    const { s, g, repeats } = scheduler({ now: () => now, alertDedupMs: 10 * 60_000 });
    s.trigger(manual); // keeps the alerts waiting
    await tick();
    const first = s.trigger(alert('jellyfin: 5xx above 5%'));
    const again = s.trigger(alert('  jellyfin:   5xx above 5%\n'));
    now += 5 * 60_000;
    const third = s.trigger(alert('jellyfin: 5xx above 5%'));
    const other = s.trigger(alert('caddy: certificate expires in 3 days'));
    expect(again.id).toBe(first.id);
    expect(third.id).toBe(first.id);
    expect(other.id).not.toBe(first.id);
    expect(first.repeats).toBe(2);
    expect(s.queue().queued).toHaveLength(2);

    // The count reaches the run's first session as soon as it starts.
    expect(repeats.at(-1)).toEqual([first.id, 2, []]);
    g.releases[0]!();
    await until(() => g.started.length === 2);
    expect(repeats.at(-1)).toEqual([first.id, 2, [102]]);
    // A repeat while it runs is counted on that session too.
    s.trigger(alert('jellyfin: 5xx above 5%'));
    expect(repeats.at(-1)).toEqual([first.id, 3, [102]]);

    // After the window, the same text is a new alert and starts a new run.
    now += 6 * 60_000;
    const later = s.trigger(alert('jellyfin: 5xx above 5%'));
    expect(later.id).not.toBe(first.id);
    expect(later.repeats).toBe(0);
    await until(() => {
      for (const r of g.releases) r();
      return g.started.length === 4;
    });
    expect(g.started.map((r) => r.alert)).toEqual([
      null,
      'jellyfin: 5xx above 5%',
      'caddy: certificate expires in 3 days',
      'jellyfin: 5xx above 5%',
    ]);
    for (const r of g.releases) r();
  });

  it('starts a new run when the earlier one was cancelled, and never merges with the window off', async () => {
    const { s, g } = scheduler({ alertDedupMs: 60_000 });
    s.trigger(manual);
    await tick();
    const first = s.trigger(alert('disk full'));
    s.cancel(first.id, 'alice');
    expect(s.trigger(alert('disk full')).id).not.toBe(first.id);

    const off = scheduler({ alertDedupMs: 0 });
    off.s.trigger(manual);
    await tick();
    const a = off.s.trigger(alert('disk full'));
    expect(off.s.trigger(alert('disk full')).id).not.toBe(a.id);
    for (const r of [...g.releases, ...off.g.releases]) r();
  });
});
