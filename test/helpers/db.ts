import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type NewCooldownAction, openStores, type Stores } from '../../src/db/index.js';
import { createMemoryKeeper, type MemoryKeeper } from '../../src/runner/memory-keeper.js';
import type { FakeClock } from './clock.js';
import { fakeClock } from './clock.js';

export interface TestApp {
  stores: Stores;
  keeper: MemoryKeeper;
  clock: FakeClock;
  dataDir: string;
  close(): void;
}

/** A fresh data folder with a real SQLite file run through the real migrator. */
export function testApp(): TestApp {
  const dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-test-'));
  const stores = openStores(join(dataDir, 'watchkeeper.db'));
  const clock = fakeClock();
  const keeper = createMemoryKeeper({ memories: stores.memories, events: stores.events, clock });
  return {
    stores,
    keeper,
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
