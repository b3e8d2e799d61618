/**
 * What was deleted here (migration 0019): one row per wording a deleted memory had, keyed by the
 * hash an import computes for a record (src/memory/identity.ts), with when and by whom. An import
 * asks here before it writes a record, so that an export taken before the deletion does not
 * bring the memory back.
 */
import { FLEET } from './memories.js';
import { type Db, statementCache } from './open.js';

export interface Tombstone {
  memoryId: number;
  contentHash: string;
  deletedAt: number;
  deletedBy: string;
  instance: string;
}

export function createTombstoneStore(db: Db) {
  const cached = statementCache(db);
  const insert = db.prepare(`INSERT INTO memory_tombstones (memory_id, content_hash, deleted_at,
    deleted_by, instance) VALUES (?, ?, ?, ?, ?)`);
  const byHash = db.prepare(`SELECT memory_id AS memoryId, content_hash AS contentHash,
    deleted_at AS deletedAt, deleted_by AS deletedBy, instance FROM memory_tombstones
    WHERE content_hash = ? AND instance IN (?, '${FLEET}') ORDER BY deleted_at DESC, id DESC
    LIMIT 1`);

  return {
    /** Records the deletion of a memory: one row per distinct hash of its wordings. */
    record(t: Omit<Tombstone, 'contentHash'> & { contentHashes: readonly string[] }): void {
      for (const hash of new Set(t.contentHashes))
        insert.run(t.memoryId, hash, t.deletedAt, t.deletedBy, t.instance);
    },

    /** The latest deletion of a memory with this hash that the instance sees, or null. */
    find(contentHash: string, visibleTo: string): Tombstone | null {
      return (byHash.get(contentHash, visibleTo) as Tombstone | undefined) ?? null;
    },

    /** Every tombstone of a memory id, oldest first. */
    ofMemory(memoryId: number): Tombstone[] {
      return cached(`SELECT memory_id AS memoryId, content_hash AS contentHash,
        deleted_at AS deletedAt, deleted_by AS deletedBy, instance FROM memory_tombstones
        WHERE memory_id = ? ORDER BY id`).all(memoryId) as Tombstone[];
    },
  };
}

export type TombstoneStore = ReturnType<typeof createTombstoneStore>;
