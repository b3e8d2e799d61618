/**
 * Part (c): decay and context assembly over 100,000 memories in a temp SQLite file, with an
 * injected fixed clock. Rows are inserted directly (one prepared statement, one transaction);
 * then the first decay (which writes), the steady-state decay (which must change nothing) and
 * the session block at 2,000 tokens are timed.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { openStores } from '../dist/db/index.js';
import { createKnowledge } from '../dist/knowledge/index.js';
import { createRng } from './prng.js';
import { round, summarize } from './stats.js';
import { timed, timedSync } from './timing.js';

const MEMORIES = 100_000;
const SERVICES = 200;
const DAY_MS = 86_400_000;
const FIXED_NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const BUDGET = 2000;
const STEADY_DECAY_RUNS = 10;
const CONTEXT_RUNS = 20;
const SEED = 100_000;

const CATEGORIES = ['timing', 'dependency', 'behavior', 'remediation', 'maintenance'];
const PREFIXES = [
  'api',
  'auth',
  'billing',
  'cache',
  'search',
  'media',
  'mail',
  'queue',
  'sync',
  'dns',
];
const SUFFIXES = [
  'gateway',
  'worker',
  'db',
  'proxy',
  'indexer',
  'scheduler',
  'exporter',
  'relay',
  'store',
  'web',
];
const OBSERVATIONS = {
  timing: (s, r) => `${s} takes about ${r.int(5, 180)}s to become healthy after a restart`,
  dependency: (s, r) => `${s} fails to start if ${r.pick(PREFIXES)}-db is not reachable yet`,
  behavior: (s, r) =>
    `${s} logs "connection reset" warnings every ${r.int(2, 60)} minutes; harmless`,
  remediation: (s, r) =>
    `Restarting ${s} clears the stuck queue; clearing /tmp/${s}-${r.int(1, 9)} did not help`,
  maintenance: (s, r) =>
    `${s} is redeployed every ${r.pick(['Monday', 'Wednesday', 'Friday'])} at 0${r.int(1, 5)}:00 UTC`,
};

function insertMemories(db, rng) {
  const services = [];
  for (let i = 0; services.length < SERVICES; i += 1) {
    services.push(
      `${PREFIXES[i % 10]}-${SUFFIXES[Math.floor(i / 10) % 10]}${i >= 100 ? `-${i}` : ''}`,
    );
  }
  const insert = db.prepare(`INSERT INTO memories (service, category, observation, confidence,
    base_confidence, active, pinned, created_at, updated_at, last_reinforced_at, session_id, tier)
    VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?, NULL, ?)`);
  let pinned = 0;
  db.transaction(() => {
    for (let i = 0; i < MEMORIES; i += 1) {
      const service = rng.chance(0.1) ? null : rng.pick(services);
      const category = CATEGORIES[i % CATEGORIES.length];
      const observation = `${OBSERVATIONS[category](service ?? 'the host', rng)} (#${i})`;
      const confidence = Math.round((0.3 + rng.next() * 0.7) * 100) / 100;
      const reinforcedAt = FIXED_NOW - Math.floor(rng.next() * 120 * DAY_MS);
      const createdAt = reinforcedAt - Math.floor(rng.next() * 60 * DAY_MS);
      const pin = rng.chance(0.005) ? 1 : 0;
      pinned += pin;
      insert.run(
        service,
        category,
        observation,
        confidence,
        confidence,
        pin,
        createdAt,
        reinforcedAt,
        reinforcedAt,
        rng.int(0, 3),
      );
    }
  })();
  return { services: services.length, pinned };
}

export async function runMemoryStoreBench({ add, fail, log }) {
  const dir = mkdtempSync(join(tmpdir(), 'watchkeeper-bench-'));
  const file = join(dir, 'memories.db');
  let stores;
  try {
    stores = openStores(file);
    // Without embeddings: this part measures the store and the lifecycle, not the model.
    const knowledge = createKnowledge({ stores, embedder: null, clock: { now: () => FIXED_NOW } });
    const keeper = knowledge.memory;

    log(`inserting ${MEMORIES.toLocaleString('en-US')} memories...`);
    const ins = timedSync(() => insertMemories(stores.db, createRng(SEED)));
    add({
      name: 'memory.insert',
      value: round(ins.ms, 1),
      unit: 'ms',
      notes: `${MEMORIES} rows, one transaction; ${ins.value.services} services + general, ${ins.value.pinned} pinned`,
    });

    log('first decay (writes)...');
    const first = await timed(() => keeper.decay());
    const active = await stores.memories.count({ status: 'active' });
    add({
      name: 'memory.decay_first',
      value: round(first.ms, 1),
      unit: 'ms',
      notes: `1 run: ${first.value.decayed} decayed, ${first.value.deactivated} deactivated; ${active} active after`,
    });

    log(`steady-state decay x${STEADY_DECAY_RUNS}...`);
    const steady = [];
    for (let i = 0; i < STEADY_DECAY_RUNS; i += 1) {
      const r = await timed(() => keeper.decay());
      steady.push(r.ms);
      if (r.value.decayed !== 0 || r.value.deactivated !== 0) {
        fail(
          `memory-store: decay is not idempotent: run ${i + 2} changed ${JSON.stringify(r.value)}`,
        );
      }
    }
    const st = summarize(steady);
    add({
      name: 'memory.decay_steady',
      value: round(st.median, 2),
      unit: 'ms',
      notes: `median of ${st.n} (${st.min.toFixed(1)}..${st.max.toFixed(1)}); changes nothing`,
    });

    log(`session block (${BUDGET} tokens) x${CONTEXT_RUNS}...`);
    const ctx = [];
    let block;
    for (let i = 0; i < CONTEXT_RUNS; i += 1) {
      const r = await timed(() => knowledge.injection.build({ trigger: null }, BUDGET));
      ctx.push(r.ms);
      block = r.value;
    }
    if (block.estimatedTokens > BUDGET) {
      fail(
        `memory-store: context block is ${block.estimatedTokens} tokens, over the budget ${BUDGET}`,
      );
    }
    const cs = summarize(ctx);
    add({
      name: 'memory.build_context',
      value: round(cs.median, 2),
      unit: 'ms',
      notes:
        `the session block of a scheduled run (${BUDGET} tokens), median of ${cs.n} (${cs.min.toFixed(1)}..${cs.max.toFixed(1)}), includes decay; ` +
        `${block.includedIds.length} of ${block.totalEligible} memories, ~${block.estimatedTokens} tokens`,
    });

    stores.db.pragma('wal_checkpoint(TRUNCATE)');
    const history = stores.db.prepare('SELECT COUNT(*) AS n FROM memory_history').get().n;
    add({
      name: 'memory.db_size',
      value: round(statSync(file).size / 1e6, 1),
      unit: 'MB',
      notes: `after WAL checkpoint; ${MEMORIES} memories, ${history} history rows`,
    });
  } finally {
    stores?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
