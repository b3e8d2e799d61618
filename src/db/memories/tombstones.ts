/**
 * What was deleted here (migration 0019): one row per wording a deleted memory had, keyed by the
 * hash an import computes for a record (src/memory/identity.ts), with when and by whom. An import
 * asks here before it writes a record, so that an export taken before the deletion does not
 * bring the memory back.
 */
import { FLEET } from './memories.js';
import type { WriteStep } from '../engine.js';
import { type Db, statementCache } from '../open.js';

/** A deleted memory's tombstone rows: one per distinct hash of its wordings. */
export type DeletedMemory = Omit<Tombstone, 'contentHash'> & { contentHashes: readonly string[] };

export interface Tombstone {
  memoryId: number;
  contentHash: string;
  deletedAt: number;
  deletedBy: string;
  instance: string;
}

export function createTombstoneStore(db: Db) {
  const cached = statementCache(db);
  // Any number of rows as one JSON parameter: one round trip for every memory a bulk delete takes.
  const insert = db.prepare(`INSERT INTO memory_tombstones (memory_id, content_hash, deleted_at,
    deleted_by, instance)
    SELECT CAST(json_extract(value, '$.memoryId') AS BIGINT), json_extract(value, '$.hash'),
      CAST(json_extract(value, '$.deletedAt') AS BIGINT), json_extract(value, '$.deletedBy'),
      json_extract(value, '$.instance')
    FROM json_each(?) ORDER BY key`);
  // Any number of hashes as one JSON parameter: one round trip for a batch of records.
  const byHashes = db.prepare(`SELECT memory_id AS memoryId, content_hash AS contentHash,
    deleted_at AS deletedAt, deleted_by AS deletedBy, instance FROM memory_tombstones
    WHERE content_hash IN (SELECT value FROM json_each(?)) AND instance IN (?, '${FLEET}')
    ORDER BY deleted_at, id`);

  return {
    /**
     * The statement that records the deletion of memories, as a step of the write that deletes
     * them (the memory store's `removeAwaited`).
     */
    recordSteps(deleted: readonly DeletedMemory[]): WriteStep[] {
      const rows = deleted.flatMap(({ contentHashes, ...t }) =>
        [...new Set(contentHashes)].map((hash) => ({ ...t, hash })),
      );
      return rows.length > 0 ? [{ stmt: insert, params: [JSON.stringify(rows)] }] : [];
    },

    /** The latest deletion the instance sees of a memory with each of these hashes. */
    findMany(contentHashes: readonly string[], visibleTo: string): Map<string, Tombstone> {
      const found = new Map<string, Tombstone>();
      if (contentHashes.length === 0) return found;
      for (const t of byHashes.all(JSON.stringify(contentHashes), visibleTo) as Tombstone[])
        found.set(t.contentHash, t);
      return found;
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
