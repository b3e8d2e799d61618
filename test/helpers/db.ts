import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  type MemoryRow,
  type NewCooldownAction,
  openStores,
  type Stores,
} from '../../src/db/index.js';
import { type Category, DEFAULT_POLICY, nextDecayAt } from '../../src/memory/index.js';
import { createKnowledge, type Knowledge, type MemoryService } from '../../src/knowledge/index.js';
import type { FakeClock } from './clock.js';
import { fakeClock } from './clock.js';

export interface TestApp {
  stores: Stores;
  /** The knowledge layer without embeddings (lexical); see helpers/knowledge.ts for the model. */
  knowledge: Knowledge;
  keeper: MemoryService;
  clock: FakeClock;
  dataDir: string;
  close(): void;
}

/** A fresh data folder with a real SQLite file run through the real migrator. */
export function testApp(): TestApp {
  const dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-test-'));
  const stores = openStores(join(dataDir, 'watchkeeper.db'));
  const clock = fakeClock();
  const knowledge = createKnowledge({ stores, embedder: null, clock });
  return {
    stores,
    knowledge,
    keeper: knowledge.memory,
    clock,
    dataDir,
    close: () => {
      stores.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A cooldown action row (a successful jellyfin restart reported by the agent, now), with overrides. */
export function cooldownRow(over: Partial<NewCooldownAction> = {}): NewCooldownAction {
  return {
    service: 'jellyfin',
    actionType: 'restart',
    success: true,
    source: 'agent',
    command: null,
    message: null,
    tier: 3,
    sessionId: null,
    createdAt: Date.now(),
    ...over,
  };
}

/**
 * A memory row written straight to the store, as the operator's add would write it, without the
 * memory service's dedup: for tests of what is done with memories, not of how they are created.
 */
export function seedMemory(
  target: { stores: Stores; clock?: { now(): number } },
  m: {
    service: string | null;
    category: Category;
    observation: string;
    confidence?: number;
    pinned?: boolean;
    sessionId?: number | null;
    tier?: number;
  },
): MemoryRow {
  const at = target.clock?.now() ?? Date.now();
  const id = target.stores.memories.create({
    service: m.service,
    category: m.category,
    observation: m.observation,
    confidence: m.confidence ?? 0.7,
    sessionId: m.sessionId ?? null,
    tier: m.tier ?? 0,
    pinned: m.pinned ?? false,
    at,
    nextDecayAt: nextDecayAt(at, at, DEFAULT_POLICY),
  });
  return target.stores.memories.get(id)!;
}
