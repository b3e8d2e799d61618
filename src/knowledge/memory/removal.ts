/**
 * Deleting memories: each leaves a tombstone with every wording it had (by the hash an import
 * computes for a record), when and by whom, in the transaction that deletes it, so that an
 * import of an export taken before the deletion does not bring it back. Every way to delete (the
 * CLI, the API, the dashboard) comes through the memory service's `remove`, which calls this.
 *
 * Awaited: the rows and their histories are read side by side, then deleted in one transaction
 * while they are as read; when another writer changed one meanwhile (a new wording the tombstone
 * would miss), all over again.
 */
import { type MemoryStore, retryWhileMoved, type TombstoneStore } from '../../db/index.js';
import { memoryKey, wordingsOf } from '../../memory/index.js';

/** Reads and deletes again at most this often when the rows keep changing meanwhile. */
const ATTEMPTS = 5;

export async function removeMemories(
  deps: { memories: MemoryStore; tombstones: TombstoneStore; now: () => number },
  ids: readonly number[],
  by: string,
): Promise<number> {
  const { memories, tombstones } = deps;
  const unique = [...new Set(ids)];
  return retryWhileMoved(async () => {
    const [rows, histories] = await Promise.all([
      memories.getManyAwaited(unique),
      memories.historyOfManyAwaited(unique),
    ]);
    const now = deps.now();
    const deleted = rows.map((row) => ({
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
    }));
    return memories.removeAwaited(rows, now, tombstones.recordSteps(deleted));
  }, ATTEMPTS);
}
