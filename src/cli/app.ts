/** Composition for one CLI command: config, database (migrated) and the memory keeper. */
import { loadConfig, type Config } from '../config.js';
import { openStores, type Stores } from '../db/index.js';
import { createMemoryKeeper, type MemoryKeeper } from '../runner/memory-keeper.js';
import type { CliIo } from './io.js';

export interface CliApp {
  config: Config;
  stores: Stores;
  keeper: MemoryKeeper;
  close(): void;
}

export function openApp(io: CliIo): CliApp {
  const config = loadConfig(io.env);
  const stores = openStores(config.dbPath);
  const keeper = createMemoryKeeper({
    memories: stores.memories,
    events: stores.events,
    clock: io.clock,
  });
  return { config, stores, keeper, close: () => stores.close() };
}
