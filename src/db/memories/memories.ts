/**
 * The memories table and its history: reads (memory-reads.ts), changes with their history
 * entries (memory-writes.ts) and the prompt block's groups (memory-context.ts), as one store.
 */
import type { Db } from '../engine.js';
import { memoryContext } from './memory-context.js';
import { memoryReads } from './memory-reads.js';
import { memoryWrites } from './memory-writes.js';

export { otherInstancesProbe, withVisibility } from './memory-columns.js';
export {
  FLEET,
  LONE_INSTANCE,
  HISTORY_ACTIONS,
  type HistoryAction,
  type HistoryRow,
  IMPORTANCES,
  type Importance,
  type MemoryChange,
  type MemoryFilter,
  type MemoryRow,
  MEMORY_SOURCES,
  type MemorySource,
  type NewMemory,
} from './memory-types.js';

export function createMemoryStore(db: Db) {
  const reads = memoryReads(db);
  return { ...memoryWrites(db, reads), ...reads, ...memoryContext(db) };
}

export type MemoryStore = ReturnType<typeof createMemoryStore>;
