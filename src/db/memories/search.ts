/**
 * The search indexes of memories: full text (FTS5, kept in step by triggers, see migration 0006)
 * and vectors (one per memory, for the model that made it). Ranking is not done here: these are
 * the candidate lists and the rows the knowledge layer ranks. On PostgreSQL the full-text table is
 * this instance's local copy of the same FTS5 table (postgres/local-text-index.ts), so that a
 * query finds and ranks the same memories on both engines.
 */
import { allAwaited, writeAwaited, writeNow, type WriteStep } from '../engine.js';
import { type Db, engineOf, fileBeside, statementCache } from '../open.js';
import { tableWatch } from '../postgres/change-watch.js';
import type { PostgresDb } from '../postgres/database.js';
import { keepRanked, localTextIndex } from '../postgres/local-text-index.js';
import { wordCounts } from './common-words.js';
import { FLEET, otherInstancesProbe, withVisibility } from './memories.js';
import { OPS_SCOPE } from './scopes.js';

export interface SearchFilter {
  service?: string | null;
  category?: string;
  status?: 'active' | 'inactive' | 'all';
  /** Last reinforced at or after / before (epoch ms). */
  since?: number;
  until?: number;
  /** Only memories of these scopes ('ops', a conversation scope); all scopes when omitted. */
  scopes?: readonly string[];
  /** Only what this instance sees: its own memories and the fleet's; every instance's when omitted. */
  visibleTo?: string;
}

export interface LexicalHit {
  id: number;
  bm25: number;
}

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

/**
 * bm25() with its column weights: the observation's own words, the service name, the category,
 * and the service's description (a match on what the service is, not on what was observed). A
 * column the match is filtered on weighs nothing: every row has the same value there, and FTS5
 * scores a phrase by the length of the whole row, so it would rank long memories of the service
 * below short ones for no other reason.
 */
function bm25Of(filter: SearchFilter): string {
  const service = filter.service === undefined ? 2.0 : 0;
  const category = filter.category === undefined ? 0.3 : 0;
  return `bm25(memories_fts, 1.0, ${service}, ${category}, 0.6)`;
}

function filterSql(
  filter: SearchFilter,
  alias: string,
): { sql: string; params: (string | number)[] } {
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (filter.service === null) where.push(`${alias}.service IS NULL`);
  else if (filter.service !== undefined) {
    where.push(`${alias}.service = ?`);
    params.push(filter.service);
  }
  if (filter.category) {
    where.push(`${alias}.category = ?`);
    params.push(filter.category);
  }
  const status = filter.status ?? 'active';
  if (status !== 'all') where.push(`${alias}.active = ${status === 'active' ? 1 : 0}`);
  if (filter.since !== undefined) {
    where.push(`${alias}.last_reinforced_at >= ?`);
    params.push(filter.since);
  }
  if (filter.until !== undefined) {
    where.push(`${alias}.last_reinforced_at < ?`);
    params.push(filter.until);
  }
  if (filter.scopes !== undefined) {
    // One statement text whatever the number of scopes: the list goes in as a JSON array.
    where.push(`${alias}.scope IN (SELECT value FROM json_each(?))`);
    params.push(JSON.stringify(filter.scopes));
  }
  if (filter.visibleTo !== undefined) {
    // A row filter (`+`): never the index to read by.
    where.push(`+${alias}.instance IN (?, '${FLEET}')`);
    params.push(filter.visibleTo);
  }
  return { sql: where.map((w) => ` AND ${w}`).join(''), params };
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

export function createSearchStore(db: Db) {
  const cached = statementCache(db);
  // On PostgreSQL the words are matched and ranked in this instance's own copy of memories_fts
  // (postgres/local-text-index.ts), the same FTS5 table as SQLite's; the filter runs in PostgreSQL.
  const text = engineOf(db) === 'postgres' ? localTextIndex(db as PostgresDb) : null;
  const ranked = (expr: string, bm25: string) => {
    const local = text!.current('memories_fts');
    return (n: number, skip: number, within?: readonly number[]) =>
      local
        .prepare(
          `SELECT rowid AS id, ${bm25} AS bm25 FROM memories_fts WHERE memories_fts MATCH ?
           ${within ? 'AND rowid IN (SELECT value FROM json_each(?))' : ''}
           ORDER BY bm25 LIMIT ? OFFSET ?`,
        )
        .all(expr, ...(within ? [JSON.stringify(within)] : []), n, skip) as LexicalHit[];
  };
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
  // Is there any memory of another instance? (A lone sidecar has none: its searches keep their
  // fast path and their SQL.)
  const hasOthers = otherInstancesProbe(db);
  const sqlOf = (filter: SearchFilter) => filterSql(withVisibility(filter, hasOthers), 'm');
  const staleModels = db.prepare(
    'SELECT model, COUNT(*) AS n FROM memory_vectors WHERE model <> ? GROUP BY model',
  );

  const store = {
    /** Where the vector index of memories is kept between runs (null: rebuilt in memory). */
    vectorIndexFile: fileBeside(db, 'memory-vectors'),

    /** How many memories hold each of these query words, and how many memories there are. */
    wordCounts: wordCounts(() => (text ? text.current('memories_fts') : db)),

    /** Memories matching an FTS5 query, best first, within the filter. */
    lexical(match: string, wanted: SearchFilter, limit: number): LexicalHit[] {
      if (match === '') return [];
      // Only what this instance sees, unless it sees every memory anyway.
      const filter = withVisibility(wanted, hasOthers);
      // Service and category narrow the match itself (FTS5 column filters), so the ranking
      // reads only their rows.
      let expr = `(${match})`;
      if (filter.service !== undefined)
        expr = `service : ${quote(filter.service ?? 'general')} AND ${expr}`;
      if (filter.category !== undefined) expr = `category : ${quote(filter.category)} AND ${expr}`;
      const bm25 = bm25Of(filter);
      const status = filter.status ?? 'active';
      // A conversation's scope holds few of the memories: the best matches overall may all be
      // outside it. The ops view ('ops' and the shared scopes) holds nearly all of them.
      const narrowScope =
        (filter.scopes !== undefined && !filter.scopes.includes(OPS_SCOPE)) ||
        filter.visibleTo !== undefined;
      if (
        status === 'inactive' ||
        filter.since !== undefined ||
        filter.until !== undefined ||
        narrowScope
      ) {
        // Rare filters (the dashboard's), and a narrow scope: rank within the join.
        if (text) {
          const keep = (ids: number[]) => store.idsWhere(ids, filter);
          // The ids the filter selects, if few.
          const narrow = (max: number) => {
            const { sql, params } = sqlOf(filter);
            const ids = cached(`SELECT m.id FROM memories m WHERE 1 = 1${sql} LIMIT ?`)
              .all(...params, max + 1)
              .map((r) => (r as { id: number }).id);
            return ids.length > max ? null : ids;
          };
          return keepRanked(ranked(expr, bm25), keep, limit, Infinity, narrow);
        }
        const { sql, params } = sqlOf(filter);
        return cached(`SELECT f.rowid AS id, ${bm25} AS bm25 FROM memories_fts f
          JOIN memories m ON m.id = f.rowid
          WHERE memories_fts MATCH ?${sql} ORDER BY bm25 LIMIT ?`).all(
          expr,
          ...params,
          limit,
        ) as LexicalHit[];
      }
      // Ranking the full-text table alone is three times faster than ranking it joined with
      // memories (bench/search-speed.js); the few inactive rows are then dropped, so twice the
      // limit is read.
      if (text) {
        const unfiltered =
          status === 'all' && filter.scopes === undefined && filter.visibleTo === undefined;
        const window = unfiltered ? limit : limit * 2;
        return keepRanked(ranked(expr, bm25), (ids) => store.idsWhere(ids, filter), limit, window);
      }
      const hits = cached(`SELECT rowid AS id, ${bm25} AS bm25 FROM memories_fts
        WHERE memories_fts MATCH ? ORDER BY bm25 LIMIT ?`).all(
        expr,
        status === 'all' && filter.scopes === undefined && filter.visibleTo === undefined
          ? limit
          : limit * 2,
      ) as LexicalHit[];
      if (status === 'all' && filter.scopes === undefined && filter.visibleTo === undefined)
        return hits;
      const keep = store.idsWhere(
        hits.map((h) => h.id),
        filter,
      );
      return hits.filter((h) => keep.has(h.id)).slice(0, limit);
    },

    /**
     * Whether any memory belongs to an instance other than this one and the fleet: when none
     * does, what this instance sees is every memory.
     */
    hasOtherInstances(instance: string): boolean {
      return hasOthers(instance);
    },

    /** Vectors of the memories within the filter (for a search narrowed to a few rows). */
    vectorsWhere(filter: SearchFilter, model: string, limit: number): StoredVector[] {
      const { sql, params } = sqlOf(filter);
      return cached(`SELECT v.id, v.memory_id AS memoryId, v.vector FROM memory_vectors v
        JOIN memories m ON m.id = v.memory_id WHERE v.model = ?${sql} LIMIT ?`).all(
        model,
        ...params,
        limit,
      ) as StoredVector[];
    },

    /** Ids of a service's memories within the filter, most confident first. */
    idsOfService(service: string, filter: SearchFilter, limit: number): number[] {
      const { sql, params } = sqlOf({ ...filter, service });
      return (
        cached(`SELECT m.id FROM memories m WHERE 1 = 1${sql}
          ORDER BY m.confidence DESC, m.id LIMIT ?`).all(...params, limit) as { id: number }[]
      ).map((r) => r.id);
    },

    /**
     * How many memories the filter selects, counting no further than `max` + 1 (to choose
     * between an exact and an indexed scan: counting all of 100,000 took 9 ms).
     */
    countWhere(filter: SearchFilter, max: number): number {
      const { sql, params } = sqlOf(filter);
      return (
        cached(
          `SELECT COUNT(*) AS n FROM (SELECT 1 FROM memories m WHERE 1 = 1${sql} LIMIT ?) c`,
        ).get(...params, max + 1) as { n: number }
      ).n;
    },

    /** Which of these memories pass the filter (ids in, ids out). */
    idsWhere(ids: readonly number[], filter: SearchFilter): Set<number> {
      if (ids.length === 0) return new Set();
      const { sql, params } = sqlOf(filter);
      const rows = cached(
        // CROSS JOIN keeps the order: look each id up by key (an IN subquery lets the planner
        // scan a whole index of memories instead, 16 times slower at 100,000).
        `SELECT m.id FROM json_each(?) j CROSS JOIN memories m ON m.id = CAST(j.value AS BIGINT)
          WHERE 1 = 1${sql}`,
      ).all(JSON.stringify(ids), ...params) as { id: number }[];
      return new Set(rows.map((r) => r.id));
    },

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
    pending(model: string, afterId: number, limit: number): PendingMemory[] {
      return pending.all(afterId, model, limit) as PendingMemory[];
    },

    countPending(model: string): number {
      return (pendingCount.get(model) as { n: number }).n;
    },

    /** Every memory's text in id order, a page at a time (reindex). */
    memoriesAfter(afterId: number, limit: number): { id: number; observation: string }[] {
      return memoriesAfter.all(afterId, limit) as { id: number; observation: string }[];
    },

    countMemories(): number {
      return (countMemories.get() as { n: number }).n;
    },

    /** Vectors made by another model than this one (a model change), per model. */
    staleModels(model: string): { model: string; n: number }[] {
      return staleModels.all(model) as { model: string; n: number }[];
    },
  };
  return store;
}

/** A value as an FTS5 string (double quotes doubled). */
function quote(value: string): string {
  return `"${value.replace(/"/g, '""')}"`;
}

export type SearchStore = ReturnType<typeof createSearchStore>;
