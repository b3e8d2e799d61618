/**
 * The search indexes of memories: full text (FTS5, kept in step by triggers, see migration 0006)
 * and vectors (one per memory, for the model that made it). Ranking is not done here: these are
 * the candidate lists and the rows the knowledge layer ranks. On PostgreSQL the full-text table is
 * this instance's local copy of the same FTS5 table (postgres/local-text-index.ts), so that a
 * query finds and ranks the same memories on both engines.
 */
import { allAwaited, getAwaited } from '../engine.js';
import { type Db, engineOf, statementCache } from '../open.js';
import type { PostgresDb } from '../postgres/database.js';
import { keepRanked, keepRankedAwaited } from '../postgres/keep-ranked.js';
import { localTextIndex } from '../postgres/local-text-index.js';
import { hnswIndexSql, vectorLiteral } from '../postgres/pgvector.js';
import { wordCounts } from './common-words.js';
import { FLEET, otherInstancesProbe, withVisibility } from './memories.js';
import { OPS_SCOPE } from './scopes.js';
import { memoryVectors, type StoredVector } from './vectors.js';

export type { NewVector, PendingMemory, StoredVector } from './vectors.js';

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

/**
 * Weights of a memory's context in bm25(): the memories right beside it, and the two beyond
 * (migration 0023). Chosen on the development split of LoCoMo with `npm run bench -- --only
 * search-quality`, as the memory graph's turn columns were.
 */
const NEAR_WEIGHT = 0.5;
const FAR_WEIGHT = 0.25;

/**
 * bm25() with its column weights: the observation's own words, the service name, the category,
 * the service's description (a match on what the service is, not on what was observed), and the
 * memory's near and far context. A column the match is filtered on weighs nothing: every row has
 * the same value there, and FTS5 scores a phrase by the length of the whole row, so it would rank
 * long memories of the service below short ones for no other reason.
 */
function bm25Of(filter: SearchFilter): string {
  const service = filter.service === undefined ? 2.0 : 0;
  const category = filter.category === undefined ? 0.3 : 0;
  return `bm25(memories_fts, 1.0, ${service}, ${category}, 0.6, ${NEAR_WEIGHT}, ${FAR_WEIGHT})`;
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

/** A ranking in the local copy, whose hits PostgreSQL checks against the filter (keepRanked). */
interface RankedPlan {
  ranked: (n: number, skip: number, within?: readonly number[]) => LexicalHit[];
  filter: SearchFilter;
  window: number;
  narrow: boolean;
}

/** The ids read, or null when there were more than `max`. */
const fewIds = (rows: unknown[], max: number) =>
  rows.length > max ? null : (rows as { id: number }[]).map((r) => r.id);

const idSet = (rows: unknown[]) => new Set((rows as { id: number }[]).map((r) => r.id));

/** A memory close in meaning to a query, as pgvector answers it. */
export interface NearestHit {
  memoryId: number;
  cosine: number;
}

export interface SearchStoreOptions {
  /** The database has pgvector (postgres/pgvector.ts): it answers the vector list. */
  pgvector?: boolean;
}

export function createSearchStore(db: Db, opts: SearchStoreOptions = {}) {
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
  // Is there any memory of another instance? (A lone sidecar has none: its searches keep their
  // fast path and their SQL.)
  const hasOthers = otherInstancesProbe(db);
  const sqlOf = (filter: SearchFilter) => filterSql(withVisibility(filter, hasOthers), 'm');

  const idsWhereQuery = (ids: readonly number[], filter: SearchFilter) => {
    const { sql, params } = sqlOf(filter);
    return {
      // CROSS JOIN keeps the order: look each id up by key (an IN subquery lets the planner
      // scan a whole index of memories instead, 16 times slower at 100,000).
      stmt: cached(`SELECT m.id FROM json_each(?) j
        CROSS JOIN memories m ON m.id = CAST(j.value AS BIGINT) WHERE 1 = 1${sql}`),
      params: [JSON.stringify(ids), ...params],
    };
  };

  /**
   * Memories matching an FTS5 query, best first, within the filter: the hits, or on PostgreSQL's
   * common search (active memories of the ops view) a ranked window still to be checked
   * against the filter, which `lexical` does at once and `lexicalAwaited` awaited.
   */
  const lexicalPlan = (
    match: string,
    wanted: SearchFilter,
    limit: number,
  ): { hits: LexicalHit[] } | RankedPlan => {
    if (match === '') return { hits: [] };
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
      if (text) return { ranked: ranked(expr, bm25), filter, window: Infinity, narrow: true };
      const { sql, params } = sqlOf(filter);
      const hits = cached(`SELECT f.rowid AS id, ${bm25} AS bm25 FROM memories_fts f
          JOIN memories m ON m.id = f.rowid
          WHERE memories_fts MATCH ?${sql} ORDER BY bm25 LIMIT ?`).all(
        expr,
        ...params,
        limit,
      ) as LexicalHit[];
      return { hits };
    }
    // Ranking the full-text table alone is three times faster than ranking it joined with
    // memories (bench/search-speed.js); the few inactive rows are then dropped, so twice the
    // limit is read.
    if (text) {
      const unfiltered =
        status === 'all' && filter.scopes === undefined && filter.visibleTo === undefined;
      const window = unfiltered ? limit : limit * 2;
      return { ranked: ranked(expr, bm25), filter, window, narrow: false };
    }
    const hits = cached(`SELECT rowid AS id, ${bm25} AS bm25 FROM memories_fts
        WHERE memories_fts MATCH ? ORDER BY bm25 LIMIT ?`).all(
      expr,
      status === 'all' && filter.scopes === undefined && filter.visibleTo === undefined
        ? limit
        : limit * 2,
    ) as LexicalHit[];
    if (status === 'all' && filter.scopes === undefined && filter.visibleTo === undefined)
      return { hits };
    const keep = store.idsWhere(
      hits.map((h) => h.id),
      filter,
    );
    return { hits: hits.filter((h) => keep.has(h.id)).slice(0, limit) };
  };

  // The ids the filter selects, if few (keepRanked's narrowing).
  const narrowQuery = (filter: SearchFilter, max: number) => {
    const { sql, params } = sqlOf(filter);
    return {
      stmt: cached(`SELECT m.id FROM memories m WHERE 1 = 1${sql} LIMIT ?`),
      params: [...params, max + 1],
    };
  };

  // Each dimension's HNSW index, made once per process when a search first needs it.
  const hnsw = new Map<number, Promise<void>>();

  const store = {
    ...memoryVectors(db),

    /**
     * Whether PostgreSQL answers the vector list (pgvector): `nearestAwaited` instead of this
     * process's own index.
     */
    vectorsInDatabase: opts.pgvector === true,

    /**
     * With pgvector, makes the HNSW index of this dimension if it is missing (serve asks at
     * start; a search asks too, and meanwhile compares every vector exactly). Settles when it
     * exists; a failure is tried again at the next call.
     */
    vectorIndexAwaited(dimension: number): Promise<void> {
      let made = hnsw.get(dimension);
      if (!made) {
        made = (db as PostgresDb)
          .callAsync({ op: 'query', text: hnswIndexSql(dimension), params: [], mode: 'plain' })
          .then(
            () => undefined,
            (err: unknown) => {
              hnsw.delete(dimension);
              throw err;
            },
          );
        hnsw.set(dimension, made);
      }
      return made;
    },

    /**
     * With pgvector, the memories within the filter nearest the query, nearest first, with their
     * cosine: from the HNSW index's nearest `breadth` of the model, or (`breadth` null, for a
     * filter that selects few memories) every one the filter selects compared exactly.
     */
    async nearestAwaited(
      query: Float32Array,
      model: string,
      filter: SearchFilter,
      limit: number,
      breadth: number | null,
    ): Promise<NearestHit[]> {
      const { sql, params } = sqlOf(filter);
      const q = vectorLiteral(query);
      if (breadth === null) {
        const stmt = cached(`SELECT v.memory_id AS memoryId,
            1 - (v.embedding <=> CAST(? AS vector)) AS cosine
          FROM memory_vectors v JOIN memories m ON m.id = v.memory_id
          WHERE v.model = ? AND v.embedding IS NOT NULL${sql} ORDER BY cosine DESC LIMIT ?`);
        return (await allAwaited(stmt, q, model, ...params, limit)) as NearestHit[];
      }
      void store.vectorIndexAwaited(query.length).catch(() => undefined);
      const stmt = cached(`SELECT n.memory_id AS memoryId, 1 - n.distance AS cosine
        FROM wk_nearest_memories(?, ?, ?, ?) n JOIN memories m ON m.id = n.memory_id
        WHERE 1 = 1${sql} ORDER BY n.distance LIMIT ?`);
      return (await allAwaited(
        stmt,
        q,
        query.length,
        model,
        breadth,
        ...params,
        limit,
      )) as NearestHit[];
    },
    /** How many memories hold each of these query words, and how many memories there are. */
    wordCounts: wordCounts(() => (text ? text.current('memories_fts') : db)),

    /** Each memory's near context as the full-text index holds it (read where it is kept). */
    nearOf(ids: readonly number[]): Map<number, string> {
      if (ids.length === 0) return new Map();
      const fts = text ? text.current('memories_fts') : db;
      const rows = fts
        .prepare(
          'SELECT rowid AS id, near FROM memories_fts WHERE rowid IN (SELECT value FROM json_each(?))',
        )
        .all(JSON.stringify(ids)) as { id: number; near: string }[];
      return new Map(rows.map((r) => [r.id, r.near]));
    },

    /**
     * On PostgreSQL, brings this instance's full-text copy up to date with what changed, its
     * reads awaited: a search calls it first, so that its own reads of the copy find it current
     * and wait on nothing. Nothing to do on SQLite, whose index is the file's own.
     */
    async textCurrentAwaited(): Promise<void> {
      if (text) await text.currentAwaited('memories_fts');
    },

    /** Memories matching an FTS5 query, best first, within the filter. */
    lexical(match: string, wanted: SearchFilter, limit: number): LexicalHit[] {
      const plan = lexicalPlan(match, wanted, limit);
      if ('hits' in plan) return plan.hits;
      const { filter } = plan;
      const narrow = (max: number) => {
        const q = narrowQuery(filter, max);
        return fewIds(q.stmt.all(...q.params), max);
      };
      return keepRanked(
        plan.ranked,
        (ids) => store.idsWhere(ids, filter),
        limit,
        plan.window,
        plan.narrow ? narrow : undefined,
      );
    },

    /**
     * The same, its check against the filter awaited (on PostgreSQL the event loop goes on).
     * Inside a transaction this process has open, use `lexical`: an awaited read does not see
     * what the transaction wrote.
     */
    async lexicalAwaited(
      match: string,
      wanted: SearchFilter,
      limit: number,
    ): Promise<LexicalHit[]> {
      const plan = lexicalPlan(match, wanted, limit);
      if ('hits' in plan) return plan.hits;
      const { filter } = plan;
      const narrow = async (max: number) => {
        const q = narrowQuery(filter, max);
        return fewIds(await allAwaited(q.stmt, ...q.params), max);
      };
      return keepRankedAwaited(
        plan.ranked,
        (ids) => store.idsWhereAwaited(ids, filter),
        limit,
        plan.window,
        plan.narrow ? narrow : undefined,
      );
    },

    /**
     * Whether any memory belongs to an instance other than this one and the fleet: when none
     * does, what this instance sees is every memory.
     */
    hasOtherInstances(instance: string): boolean {
      return hasOthers(instance);
    },

    /**
     * Vectors of the memories within the filter (for a search narrowed to a few rows). The reads
     * of a search are awaited: on PostgreSQL the event loop goes on meanwhile.
     */
    async vectorsWhereAwaited(
      filter: SearchFilter,
      model: string,
      limit: number,
    ): Promise<StoredVector[]> {
      const { sql, params } = sqlOf(filter);
      const stmt = cached(`SELECT v.id, v.memory_id AS memoryId, v.vector FROM memory_vectors v
        JOIN memories m ON m.id = v.memory_id WHERE v.model = ?${sql} LIMIT ?`);
      return (await allAwaited(stmt, model, ...params, limit)) as StoredVector[];
    },

    /** Ids of a service's memories within the filter, most confident first. */
    async idsOfServiceAwaited(
      service: string,
      filter: SearchFilter,
      limit: number,
    ): Promise<number[]> {
      const { sql, params } = sqlOf({ ...filter, service });
      const stmt = cached(`SELECT m.id FROM memories m WHERE 1 = 1${sql}
        ORDER BY m.confidence DESC, m.id LIMIT ?`);
      return ((await allAwaited(stmt, ...params, limit)) as { id: number }[]).map((r) => r.id);
    },

    /**
     * How many memories the filter selects, counting no further than `max` + 1 (to choose
     * between an exact and an indexed scan: counting all of 100,000 took 9 ms).
     */
    async countWhereAwaited(filter: SearchFilter, max: number): Promise<number> {
      const { sql, params } = sqlOf(filter);
      const stmt = cached(
        `SELECT COUNT(*) AS n FROM (SELECT 1 FROM memories m WHERE 1 = 1${sql} LIMIT ?) c`,
      );
      return ((await getAwaited(stmt, ...params, max + 1)) as { n: number }).n;
    },

    /** Which of these memories pass the filter (ids in, ids out). */
    idsWhere(ids: readonly number[], filter: SearchFilter): Set<number> {
      if (ids.length === 0) return new Set();
      const q = idsWhereQuery(ids, filter);
      return idSet(q.stmt.all(...q.params));
    },

    /** The same, awaited. */
    async idsWhereAwaited(ids: readonly number[], filter: SearchFilter): Promise<Set<number>> {
      if (ids.length === 0) return new Set();
      const q = idsWhereQuery(ids, filter);
      return idSet(await allAwaited(q.stmt, ...q.params));
    },
  };
  return store;
}

/** A value as an FTS5 string (double quotes doubled). */
function quote(value: string): string {
  return `"${value.replace(/"/g, '""')}"`;
}

export type SearchStore = ReturnType<typeof createSearchStore>;
