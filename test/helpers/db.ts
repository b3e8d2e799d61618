import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
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
import { migratedDatabaseSync } from './postgres.js';

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

let sqliteTemplate: string | null = null;

/**
 * A new SQLite file with every migration applied: a copy of one this process ran through the
 * real migrator once (migrating takes longer than copying, and most tests want a fresh store).
 */
export function migratedSqliteFile(path: string): void {
  if (!sqliteTemplate) {
    const dir = mkdtempSync(join(tmpdir(), 'watchkeeper-template-'));
    const file = join(dir, 'watchkeeper.db');
    openStores(file).close();
    // Closing the last connection folds the write-ahead log into the file: it is whole alone.
    if (existsSync(`${file}-wal`)) throw new Error(`${file}-wal is left after closing`);
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    sqliteTemplate = file;
  }
  copyFileSync(sqliteTemplate, path);
}

/**
 * A fresh data folder with a real SQLite file run through the real migrator (a copy of a
 * migrated file, see migratedSqliteFile); in the `postgres`
 * test project (WATCHKEEPER_TEST_ENGINE=postgres), a fresh database on the run's PostgreSQL
 * server instead (a copy of its migrated template), dropped on close.
 */
export function testApp(): TestApp {
  const dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-test-'));
  let dropDatabase = () => {};
  let stores: Stores;
  if (process.env.WATCHKEEPER_TEST_ENGINE === 'postgres') {
    const database = migratedDatabaseSync();
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
    const file = join(dataDir, 'watchkeeper.db');
    migratedSqliteFile(file);
    stores = openStores(file);
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
