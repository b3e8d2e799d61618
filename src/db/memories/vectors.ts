/**
 * The vectors of memories (one per memory, for the model that made it): what the in-memory
 * index reads and catches up with, what a search reads for its candidates, and what the
 * embedding catch-up and `reindex` write. Part of the search store (search.ts).
 */
import { allAwaited, getAwaited, writeAwaited, writeNow, type WriteStep } from '../engine.js';
import { type Db, fileBeside } from '../open.js';
import { tableWatch } from '../postgres/change-watch.js';

export interface StoredVector {
  /** Row id in memory_vectors; grows with every write. */
  id: number;
  memoryId: number;
  vector: Uint8Array;
}

export interface PendingMemory {
  id: number;
  service: string | null;
  observation: string;
  description: string | null;
}

/** A memory's vector to store. */
export interface NewVector {
  memoryId: number;
  vector: Buffer;
}

interface VectorOf {
  memoryId: number;
  vector: Uint8Array;
}

const byMemory = (rows: readonly VectorOf[]) =>
  new Map(rows.map((r): [number, Uint8Array] => [r.memoryId, r.vector]));

export function memoryVectors(db: Db) {
  // A rewrite deletes and inserts, so that the row gets a new, higher id (see vectorsSince).
  const dropVector = db.prepare('DELETE FROM memory_vectors WHERE memory_id = ?');
  const putVector = db.prepare(`INSERT INTO memory_vectors (memory_id, model, dimension, vector,
    created_at) SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM memories WHERE id = ?)`);
  // A memory deleted while its text was being embedded gets no vector.
  const vectorSteps = (rows: readonly NewVector[], model: string, dimension: number, at: number) =>
    rows.flatMap((r): WriteStep[] => [
      { stmt: dropVector, params: [r.memoryId] },
      { stmt: putVector, params: [r.memoryId, model, dimension, r.vector, at, r.memoryId] },
    ]);
  const since = db.prepare(`SELECT id, memory_id AS memoryId, vector FROM memory_vectors
    WHERE id > ? AND model = ? ORDER BY id`);
  const maxId = db.prepare('SELECT coalesce(max(id), 0) AS n FROM memory_vectors');
  const countVectors = db.prepare('SELECT COUNT(*) AS n FROM memory_vectors WHERE model = ?');
  const countAllVectors = db.prepare('SELECT COUNT(*) AS n FROM memory_vectors');
  const pending = db.prepare(`SELECT m.id, m.service, m.observation, s.description
    FROM memories m LEFT JOIN services s ON s.name = m.service
    WHERE m.id > ? AND NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.memory_id = m.id AND v.model = ?)
    ORDER BY m.id LIMIT ?`);
  const pendingCount = db.prepare(`SELECT COUNT(*) AS n FROM memories m
    WHERE NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.memory_id = m.id AND v.model = ?)`);
  // A list of ids is one JSON parameter, so one prepared statement serves any number of them.
  const vectorsIn = db.prepare(`SELECT v.memory_id AS memoryId, v.vector FROM json_each(?) j
    CROSS JOIN memory_vectors v ON v.memory_id = CAST(j.value AS BIGINT) WHERE v.model = ?`);
  const memoriesAfter = db.prepare(
    'SELECT id, observation FROM memories WHERE id > ? ORDER BY id LIMIT ?',
  );
  const countMemories = db.prepare('SELECT COUNT(*) AS n FROM memories');
  const staleModels = db.prepare(
    'SELECT model, COUNT(*) AS n FROM memory_vectors WHERE model <> ? GROUP BY model',
  );

  return {
    /** Where the vector index of memories is kept between runs (null: rebuilt in memory). */
    vectorIndexFile: fileBeside(db, 'memory-vectors'),

    /** The stored vectors of these memories for this model (missing ones are pending). */
    vectorsOf(memoryIds: readonly number[], model: string): Map<number, Uint8Array> {
      if (memoryIds.length === 0) return new Map();
      return byMemory(vectorsIn.all(JSON.stringify(memoryIds), model) as VectorOf[]);
    },

    /** The same, awaited. */
    async vectorsOfAwaited(
      memoryIds: readonly number[],
      model: string,
    ): Promise<Map<number, Uint8Array>> {
      if (memoryIds.length === 0) return new Map();
      return byMemory(
        (await allAwaited(vectorsIn, JSON.stringify(memoryIds), model)) as VectorOf[],
      );
    },

    /**
     * A watch of the vectors: each call says whether any may have been written since the last
     * call that said so, and an in-memory index need not read `vectorsSince` otherwise.
     */
    vectorWatch: () => tableWatch(db, 'memory_vectors'),

    /** Vectors written after `afterId`, for a process's in-memory index to catch up. */
    vectorsSince(afterId: number, model: string): StoredVector[] {
      return since.all(afterId, model) as StoredVector[];
    },

    lastVectorId(): number {
      return (maxId.get() as { n: number }).n;
    },

    countVectors(model: string): number {
      return (countVectors.get(model) as { n: number }).n;
    },

    /** Vectors of every model: one read of an index (by model reads every row, 2 s at 100,000). */
    countAllVectors(): number {
      return (countAllVectors.get() as { n: number }).n;
    },

    putVectors(rows: readonly NewVector[], model: string, dimension: number, at: number): void {
      writeNow(db, vectorSteps(rows, model, dimension, at));
    },

    /** The same, awaited. */
    async putVectorsAwaited(
      rows: readonly NewVector[],
      model: string,
      dimension: number,
      at: number,
    ): Promise<void> {
      await writeAwaited(db, vectorSteps(rows, model, dimension, at));
    },

    /** Memories with no vector from this model, oldest first, after `afterId`. */
    async pending(model: string, afterId: number, limit: number): Promise<PendingMemory[]> {
      return (await allAwaited(pending, afterId, model, limit)) as PendingMemory[];
    },

    async countPending(model: string): Promise<number> {
      return ((await getAwaited(pendingCount, model)) as { n: number }).n;
    },

    /** Every memory's text in id order, a page at a time (reindex). */
    async memoriesAfter(
      afterId: number,
      limit: number,
    ): Promise<{ id: number; observation: string }[]> {
      return (await allAwaited(memoriesAfter, afterId, limit)) as {
        id: number;
        observation: string;
      }[];
    },

    async countMemories(): Promise<number> {
      return ((await getAwaited(countMemories)) as { n: number }).n;
    },

    /** Vectors made by another model than this one (a model change), per model. */
    staleModels(model: string): { model: string; n: number }[] {
      return staleModels.all(model) as { model: string; n: number }[];
    },
  };
}
