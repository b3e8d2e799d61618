/**
 * A memory whose times carry a fraction of a millisecond (a SQLite file another clock wrote to:
 * `performance.now()` rather than `Date.now()`) is changed like any other: the guard that keeps
 * two writers apart compares the time it read with the time stored, fraction and all.
 */
import { afterEach, describe, expect, it } from 'vitest';

import { DAY_MS } from '../../src/clock.js';
import { openStores, type Stores } from '../../src/db/index.js';
import { createKnowledge } from '../../src/knowledge/index.js';
import { fakeClock } from '../helpers/clock.js';

let stores: Stores | null = null;
afterEach(() => {
  stores?.close();
  stores = null;
});

describe('a memory stored with fractional times', () => {
  it('decays, and is reinforced by an observation that says it again', async () => {
    const clock = fakeClock();
    stores = openStores(':memory:');
    const at = clock.now() - 60 * DAY_MS + 0.375;
    stores.db
      .prepare(
        `INSERT INTO memories (service, category, observation, confidence, base_confidence,
          active, pinned, created_at, updated_at, last_reinforced_at, session_id, tier,
          next_decay_at) VALUES ('nas', 'behavior', ?, 0.9, 0.9, 1, 0, ?, ?, ?, NULL, 1, 0)`,
      )
      .run('the nas scrub runs on sundays and slows the shares', at, at, at);
    const knowledge = createKnowledge({ stores, embedder: null, clock });
    expect(await knowledge.memory.decay()).toEqual({ decayed: 1, deactivated: 0 });
    const outcome = await knowledge.memory.observe({
      service: 'nas',
      category: 'behavior',
      observation: 'the nas scrub runs on sundays and slows the shares',
      sessionId: null,
      tier: 1,
    });
    expect(outcome.action).toBe('reinforced');
    expect(stores.memories.history(outcome.memory.id).map((h) => h.action)).toEqual([
      'decayed',
      'reinforced',
    ]);
  });
});
