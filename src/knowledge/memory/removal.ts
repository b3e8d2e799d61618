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
    const rows = memories.getMany([...new Set(ids)]);
    const histories = memories.historyOfMany(rows.map((r) => r.id));
    tombstones.record(
      rows.map((row) => ({
        memoryId: row.id,
        contentHashes: wordingsOf(row.observation, histories.get(row.id) ?? []).map((text) =>
          memoryKey({
            scope: row.scope,
            service: row.service,
            category: row.category,
            text,
            createdAt: row.createdAt,
          }),
        ),
        deletedAt: now,
        deletedBy: by,
        instance: row.instance,
      })),
    );
    return memories.remove(ids, now);
  });
}
