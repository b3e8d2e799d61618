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
import { freshDatabaseSync } from './postgres.js';

export interface TestApp {
  stores: Stores;
  /** The knowledge layer without embeddings (lexical); see helpers/knowledge.ts for the model. */
  knowledge: Knowledge;
  keeper: MemoryService;
  clock: FakeClock;
  dataDir: string;
  close(): void;
}

/** The PostgreSQL database of each open test app's data folder (postgres project only). */
const databaseUrls = new Map<string, string>();

/**
 * The database URL of the test app whose data folder this is, for a CLI run in-process on the
 * same store (WATCHKEEPER_DATABASE_URL); undefined on SQLite, where the folder holds the file.
 */
export function testDatabaseUrl(dataDir: string): string | undefined {
  return databaseUrls.get(dataDir);
}

/**
 * A fresh data folder with a real SQLite file run through the real migrator; in the `postgres`
 * test project (WATCHKEEPER_TEST_ENGINE=postgres), a fresh database on the run's PostgreSQL
 * server instead, dropped on close.
 */
export function testApp(): TestApp {
  const dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-test-'));
  let dropDatabase = () => {};
  let stores: Stores;
  if (process.env.WATCHKEEPER_TEST_ENGINE === 'postgres') {
    const database = freshDatabaseSync();
    dropDatabase = () => {
      databaseUrls.delete(dataDir);
      database.drop();
    };
    databaseUrls.set(dataDir, database.url);
    try {
      stores = openStores(database.url, { instance: 'local' });
      if (stores.db.engine !== 'postgres') {
        stores.close();
        throw new Error(`openStores opened ${database.url} as a SQLite file, not on PostgreSQL`);
      }
    } catch (err) {
      database.drop();
      rmSync(dataDir, { recursive: true, force: true });
      throw err;
    }
  } else {
    stores = openStores(join(dataDir, 'watchkeeper.db'));
  }
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
      dropDatabase();
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
