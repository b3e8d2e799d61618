/**
 * Deleting memories: each leaves a tombstone with every wording it had (by the hash an import
 * computes for a record), when and by whom, in the transaction that deletes it, so that an
 * import of an export taken before the deletion does not bring it back. Every way to delete (the
 * CLI, the API, the dashboard) comes through the memory service's `remove`, which calls this.
 */
import type { MemoryStore, TombstoneStore } from '../../db/index.js';
import { memoryKey, wordingsOf } from '../../memory/index.js';

export function removeMemories(
  deps: { memories: MemoryStore; tombstones: TombstoneStore; now: () => number },
  ids: readonly number[],
  by: string,
): number {
  const { memories, tombstones } = deps;
  return memories.atomically(() => {
    const now = deps.now();
    for (const id of new Set(ids)) {
      const row = memories.get(id);
      if (!row) continue;
      const hashes = wordingsOf(row.observation, memories.history(id)).map((text) =>
        memoryKey({
          scope: row.scope,
          service: row.service,
          category: row.category,
          text,
          createdAt: row.createdAt,
        }),
      );
      tombstones.record({
        memoryId: id,
        contentHashes: hashes,
        deletedAt: now,
        deletedBy: by,
        instance: row.instance,
      });
    }
    return memories.remove(ids, now);
  });
}
