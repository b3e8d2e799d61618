/**
 * Two instances changing the same memory at once, on one PostgreSQL database: the result is
 * that of one change after the other. The second instance's change is made while the first
 * one's transaction is open, between its read and its write, which is where a lost update
 * would happen.
 */
import { afterEach, describe, expect, it } from 'vitest';

import type { MemoryChange } from '../../src/db/index.js';
import { DEFAULT_POLICY, reinforcedConfidence } from '../../src/memory/index.js';
import type { FakeClock } from '../helpers/clock.js';
import { seedMemory } from '../helpers/db.js';
import { type PgFleet, pgFleet, type PgInstance } from '../helpers/pg-fleet.js';
import { skipWithoutPostgres } from '../helpers/postgres.js';

skipWithoutPostgres();

let fleet: PgFleet | null = null;
afterEach(() => {
  fleet?.close();
  fleet = null;
});

function fleetOfTwo(): [PgInstance, PgInstance, FakeClock] {
  fleet = pgFleet(['cluster-a', 'cluster-b']);
  const [a, b] = fleet.instances;
  return [a!, b!, fleet.clock];
}

/** A memory of instance a at confidence 0.5. */
const seedAtHalf = (a: PgInstance, clock: FakeClock) =>
  seedMemory(
    { stores: a.stores, clock },
    {
      service: 'postgres',
      category: 'timing',
      observation: 'postgres takes 40 seconds to accept connections after a restart',
      confidence: 0.5,
    },
  );

/** A reinforcement whose confidence is computed from the row as read; `onRead` runs at each read. */
const reinforcement = (id: number, at: number, onRead: () => void): MemoryChange => ({
  id,
  action: 'reinforced',
  confidence: 0,
  confidenceOf: (current) => {
    onRead();
    return reinforcedConfidence(current.confidence, DEFAULT_POLICY);
  },
  active: true,
  at,
});

const ONCE = reinforcedConfidence(0.5, DEFAULT_POLICY);
const TWICE = reinforcedConfidence(ONCE, DEFAULT_POLICY);

describe('two instances changing one memory at once', () => {
  it('count both reinforcements', () => {
    const [a, b, clock] = fleetOfTwo();
    const m = seedAtHalf(a, clock);
    let reads = 0;
    a.stores.memories.change([
      reinforcement(m.id, clock.now(), () => {
        reads += 1;
        if (reads === 1) b.knowledge.memory.reinforce(m.id, { sessionId: null });
      }),
    ]);
    expect(a.stores.memories.get(m.id)!.confidence).toBeCloseTo(TWICE, 6);
    const history = b.stores.memories.history(m.id).filter((h) => h.action === 'reinforced');
    expect(history).toHaveLength(2);
  });

  it('count both reinforcements when the first is written awaited, outside its reading transaction', async () => {
    const [a, b, clock] = fleetOfTwo();
    const m = seedAtHalf(a, clock);
    let reads = 0;
    // Between a's read and its write, b reinforces: a's write finds the row moved, and a reads
    // it again.
    await a.stores.memories.changeAwaited([
      reinforcement(m.id, clock.now(), () => {
        reads += 1;
        if (reads === 1) b.knowledge.memory.reinforce(m.id, { sessionId: null });
      }),
    ]);
    expect(reads).toBe(2);
    expect(a.stores.memories.get(m.id)!.confidence).toBeCloseTo(TWICE, 6);
    const history = b.stores.memories.history(m.id).filter((h) => h.action === 'reinforced');
    expect(history.map((h) => h.oldConfidence)).toEqual([0.5, expect.closeTo(ONCE, 6)]);
  });

  it('reinforce with every one of many re-observations at once, none refused', async () => {
    // Two processes of one instance (two serve processes, or serve and an MCP server).
    fleet = pgFleet(['cluster-a', 'cluster-a']);
    const [a, b] = fleet.instances as [PgInstance, PgInstance];
    const texts = ['nas', 'jellyfin', 'grafana', 'redis', 'postgres'].map((service) => ({
      service,
      category: 'behavior' as const,
      observation: `${service} restarts cleanly after the nightly backup`,
    }));
    for (const t of texts) await a.knowledge.memory.observe({ ...t, sessionId: null, tier: 1 });
    // Eight writers on each instance, each saying all five again four times: the same rows,
    // read and written by both at once.
    const writers = Array.from({ length: 16 }, async (_, w) => {
      const k = (w % 2 === 0 ? a : b).knowledge;
      const actions: string[] = [];
      for (let i = 0; i < 20; i += 1) {
        const t = texts[(w + i) % texts.length]!;
        actions.push((await k.memory.observe({ ...t, sessionId: null, tier: 1 })).action);
      }
      return actions;
    });
    const actions = (await Promise.all(writers)).flat();
    expect(new Set(actions)).toEqual(new Set(['reinforced']));
    const reinforced = a.stores.db
      .prepare("SELECT COUNT(*) AS n FROM memory_history WHERE action = 'reinforced'")
      .get() as { n: number };
    expect(reinforced.n).toBe(320);
  });

  it('keep a reinforcement made while the other instance decays', async () => {
    const [a, b, clock] = fleetOfTwo();
    const m = seedMemory(
      { stores: a.stores, clock },
      {
        service: 'redis',
        category: 'behavior',
        observation: 'redis evicts keys under memory pressure before the nightly backup',
        confidence: 0.8,
      },
    );
    clock.advance(60 * 86_400_000);
    let interleaved = false;
    // Between the decay's read of what is due and its write, the other instance writes.
    const decayAwaited = a.stores.memories.decayAwaited.bind(a.stores.memories);
    a.stores.memories.decayAwaited = (now, plan) =>
      decayAwaited(now, (due) => {
        if (!interleaved) {
          interleaved = true;
          b.knowledge.memory.reinforce(m.id, { sessionId: null });
        }
        return plan(due);
      });
    await a.knowledge.memory.decay();
    const after = b.stores.memories.get(m.id)!;
    // Reinforced today: nothing was due any more when the decay ran again.
    expect(after.lastReinforcedAt).toBe(clock.now());
    expect(after.confidence).toBeGreaterThan(0.8);
    expect(b.stores.memories.history(m.id).map((h) => h.action)).not.toContain('decayed');
  });

  it('delete a memory the other instance is reinforcing, without an error', () => {
    const [a, b, clock] = fleetOfTwo();
    const m = seedMemory(
      { stores: a.stores, clock },
      {
        service: 'nginx',
        category: 'dependency',
        observation: 'nginx needs the certificate volume mounted before it starts',
      },
    );
    a.stores.memories.change([
      {
        id: m.id,
        action: 'reinforced',
        confidence: 0,
        confidenceOf: (current) => {
          if (b.stores.memories.get(m.id)) b.stores.memories.remove([m.id], clock.now());
          return reinforcedConfidence(current.confidence, DEFAULT_POLICY);
        },
        active: true,
        at: clock.now(),
      },
    ]);
    expect(a.stores.memories.get(m.id)).toBeNull();
  });
});
