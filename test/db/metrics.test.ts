import { afterEach, describe, expect, it } from 'vitest';

import { testApp, type TestApp } from '../helpers/db.js';

let app: TestApp;
afterEach(() => app?.close());

const T0 = Date.UTC(2026, 10, 1);

/** A finished session of `tier` that ran for `seconds`, with what its result line reported. */
function session(
  tier: number,
  seconds: number | null,
  over: { costUsd?: number; usage?: Record<string, unknown> | null; status?: 'completed' } = {},
) {
  const id = app.stores.sessions.start({ trigger: 'scheduled', tier, startedAt: T0 });
  if (seconds !== null) {
    app.stores.sessions.finish(id, {
      status: over.status ?? 'completed',
      endedAt: T0 + seconds * 1000,
      costUsd: over.costUsd ?? null,
      usage: over.usage ?? null,
    });
  }
  return id;
}

describe('what /metrics reads from the database', () => {
  it('counts ended sessions into cumulative duration buckets per tier; a running one in none', async () => {
    app = testApp();
    session(1, 5);
    session(1, 45);
    session(1, 700);
    session(2, 30);
    session(1, null); // still running
    const { durations } = await app.stores.metrics.read([10, 30, 60, 600, 900]);
    expect(durations).toEqual([
      { tier: 1, cumulative: [1, 1, 2, 2, 3], count: 3, sumSeconds: 750 },
      // A bound is inclusive: 30 s is in the 30 s bucket.
      { tier: 2, cumulative: [0, 1, 1, 1, 1], count: 1, sumSeconds: 30 },
      { tier: 3, cumulative: [0, 0, 0, 0, 0], count: 0, sumSeconds: 0 },
    ]);
  });

  it('sums cost and the tokens of the usage the CLI reported, skipping usage it cannot read', async () => {
    app = testApp();
    session(1, 1, {
      costUsd: 0.25,
      usage: {
        input_tokens: 100,
        output_tokens: 20,
        cache_read_input_tokens: 3000,
        cache_creation_input_tokens: 400,
      },
    });
    session(1, 1, { costUsd: 0.5, usage: { input_tokens: 1, output_tokens: 2 } });
    const broken = session(3, 1, { costUsd: 1 });
    app.stores.db.prepare("UPDATE sessions SET usage_json = '{not json' WHERE id = ?").run(broken);
    const m = await app.stores.metrics.read([]);
    expect(m.costUsd).toEqual([
      { tier: 1, usd: 0.75 },
      { tier: 2, usd: 0 },
      { tier: 3, usd: 1 },
    ]);
    expect(m.tokens.filter((t) => t.tier === 1)).toEqual([
      { tier: 1, kind: 'input', count: 101 },
      { tier: 1, kind: 'output', count: 22 },
      { tier: 1, kind: 'cache_read', count: 3000 },
      { tier: 1, kind: 'cache_write', count: 400 },
    ]);
    expect(m.tokens.filter((t) => t.tier === 3).map((t) => t.count)).toEqual([0, 0, 0, 0]);
  });

  it('gives every status and tier, event level and action a value, 0 when there is none', async () => {
    app = testApp();
    session(2, 1);
    const m = await app.stores.metrics.read([]);
    expect(m.sessions).toHaveLength(7 * 3);
    expect(m.sessions.find((s) => s.status === 'completed' && s.tier === 2)?.count).toBe(1);
    expect(m.sessions.filter((s) => s.count > 0)).toHaveLength(1);
    expect(m.events.map((e) => e.level)).toEqual(['info', 'warning', 'critical']);
    expect(m.guardRefusals).toEqual([
      { action: 'restart', count: 0 },
      { action: 'redeployment', count: 0 },
    ]);
    expect(m.memories).toEqual({ active: 0, inactive: 0 });
    expect(m.memoryChanges).toEqual([
      { action: 'created', count: 0 },
      { action: 'reinforced', count: 0 },
    ]);
  });

  it('sees every change of the database, also between two reads in a row', async () => {
    app = testApp();
    const completed = async () =>
      (await app.stores.metrics.read([])).sessions.find(
        (s) => s.status === 'completed' && s.tier === 1,
      )!.count;
    expect(await completed()).toBe(0);
    session(1, 5);
    expect(await completed()).toBe(1);
    expect(await completed()).toBe(1);
    app.stores.db.prepare('DELETE FROM sessions').run();
    expect(await completed()).toBe(0);
  });
});
