/**
 * The memory graph's search indexes: full text over ideas and spans (FTS5, kept in step by the
 * triggers of migration 0010) and one vector per idea and per span summary. Candidate lists only:
 * graph/remember.ts ranks them. On PostgreSQL the full-text tables are this instance's local
 * copies (postgres/local-text-index.ts) and the words around an idea live in idea_context.
 */
import { anyOfWords } from '../fts-query.js';
import type { Intent } from './graph-store.js';
import { createIdeaWords, type IdeaWords } from './graph-words.js';
import { type Db, engineOf, statementCache } from '../open.js';
import { tableWatch } from '../postgres/change-watch.js';
import type { PostgresDb } from '../postgres/database.js';
import { keepRanked, localTextIndex } from '../postgres/local-text-index.js';

export interface IdeaFilter {
  intents?: readonly Intent[];
  /** Said at or after / before (epoch ms). */
  since?: number;
  until?: number;
  sessions?: readonly string[];
  /** Questions still open only. */
  openOnly?: boolean;
}

export interface GraphHit {
  id: number;
  bm25: number;
}

export interface IdeaHit extends GraphHit {
  spanId: number | null;
}

/** Words around an idea that find it too (ideas_fts columns other than its content). */
export interface IdeaContext {
  turn?: string;
  near?: string;
  far?: string;
}

/** Column weights of bm25(ideas_fts): the idea, its turn, the turns next to it, two away. */
export const IDEA_COLUMN_WEIGHTS: readonly [number, number, number, number] = [1, 1, 0.5, 0.25];

/** The shape knowledge/vector-index.ts catches up from (`memoryId` is the idea's or span's id). */
export interface GraphStoredVector {
  id: number;
  memoryId: number;
  vector: Uint8Array;
}

function filterSql(f: IdeaFilter, alias: string): { sql: string; params: (string | number)[] } {
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (f.intents && f.intents.length > 0) {
    where.push(`${alias}.intent IN (${f.intents.map(() => '?').join(',')})`);
    params.push(...f.intents);
  }
  if (f.openOnly) where.push(`${alias}.answered = 0`);
  if (f.since !== undefined) {
    where.push(`${alias}.created_at >= ?`);
    params.push(f.since);
  }
  if (f.until !== undefined) {
    where.push(`${alias}.created_at < ?`);
    params.push(f.until);
  }
  if (f.sessions && f.sessions.length > 0) {
    where.push(`${alias}.session IN (${f.sessions.map(() => '?').join(',')})`);
    params.push(...f.sessions);
  }
  return { sql: where.map((w) => ` AND ${w}`).join(''), params };
}

export function isFiltered(f: IdeaFilter): boolean {
  return filterSql(f, 'i').params.length > 0 || f.openOnly === true;
}

/** One in-memory copy of ideas_fts's words per connection (graph-words.ts), made on first use. */
const wordsOf = new WeakMap<Db, IdeaWords>();

type VectorTable = 'idea_vectors' | 'span_vectors';
const REF: Record<VectorTable, string> = { idea_vectors: 'idea_id', span_vectors: 'span_id' };

export function createGraphSearchStore(db: Db) {
  const cached = statementCache(db);
  // On PostgreSQL the words are matched and ranked in this instance's own copies of ideas_fts and
  // spans_fts (postgres/local-text-index.ts), the same FTS5 tables as SQLite's; the words around
  // an idea are kept in idea_context, and the filter runs in PostgreSQL.
  const localText = engineOf(db) === 'postgres' ? localTextIndex(db as PostgresDb) : null;
  const ranked = (table: 'ideas_fts' | 'spans_fts', bm25: string, match: string) => {
    const stmt = localText!.current(table).prepare(
      `SELECT rowid AS id, ${bm25} AS bm25 FROM ${table} WHERE ${table} MATCH ?
        ORDER BY bm25 LIMIT ? OFFSET ?`,
    );
    return (n: number, skip: number) => stmt.all(match, n, skip) as GraphHit[];
  };

  const put = (table: VectorTable) => {
    const ref = REF[table];
    const owner = table === 'idea_vectors' ? 'ideas' : 'spans';
    const drop = db.prepare(`DELETE FROM ${table} WHERE ${ref} = ?`);
    // A row deleted while its text was being embedded gets no vector.
    const insert = db.prepare(`INSERT INTO ${table} (${ref}, model, dimension, vector, created_at)
      SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM ${owner} WHERE id = ?)`);
    return db.transaction(
      (rows: readonly { id: number; vector: Buffer }[], model: string, dim: number, at: number) => {
        for (const r of rows) {
          drop.run(r.id);
          insert.run(r.id, model, dim, r.vector, at, r.id);
        }
      },
    );
  };
  const putIdeas = put('idea_vectors');
  const putSpans = put('span_vectors');

  const vectorsOf = (table: VectorTable, ids: readonly number[], model: string) => {
    const out = new Map<number, Uint8Array>();
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const rows = cached(
        `SELECT ${REF[table]} AS ref, vector FROM ${table}
           WHERE model = ? AND ${REF[table]} IN (${chunk.map(() => '?').join(',')})`,
      ).all(model, ...chunk) as { ref: number; vector: Uint8Array }[];
      for (const r of rows) out.set(r.ref, r.vector);
    }
    return out;
  };

  const words = () => {
    let w = wordsOf.get(db);
    if (!w) {
      w = createIdeaWords(db, IDEA_COLUMN_WEIGHTS);
      wordsOf.set(db, w);
    }
    return w;
  };

  const self = {
    /** Ideas matching an FTS5 query (by their words or the words around them), best first. */
    lexicalIdeas(
      match: string,
      filter: IdeaFilter,
      limit: number,
      weights: readonly number[] = IDEA_COLUMN_WEIGHTS,
    ): IdeaHit[] {
      if (match === '') return [];
      const { sql, params } = filterSql(filter, 'i');
      const bm25 = `bm25(ideas_fts, ${weights.map((w) => Number(w).toFixed(3)).join(', ')})`;
      if (localText) {
        const spans = new Map<number, number | null>();
        const keep = (ids: number[]) => {
          const rows = db
            .prepare(
              `SELECT i.id, i.span_id AS spanId FROM ideas i
               WHERE i.id IN (${ids.map(() => '?').join(',')})${sql}`,
            )
            .all(...ids, ...params) as { id: number; spanId: number | null }[];
          for (const r of rows) spans.set(r.id, r.spanId);
          return new Set(rows.map((r) => r.id));
        };
        return keepRanked(ranked('ideas_fts', bm25, match), keep, limit).map((h) => ({
          ...h,
          spanId: spans.get(h.id) ?? null,
        }));
      }
      return cached(`SELECT f.rowid AS id, ${bm25} AS bm25, i.span_id AS spanId
        FROM ideas_fts f JOIN ideas i ON i.id = f.rowid WHERE ideas_fts MATCH ?${sql}
        ORDER BY bm25 LIMIT ?`).all(match, ...params, limit) as IdeaHit[];
    },

    /**
     * The ideas nearest some words, as `lexicalIdeas` ranks an any-of query of them: on SQLite
     * from the words held in memory (graph-words.ts), which indexing asks once per new idea.
     */
    nearestByWords(queryWords: readonly string[], limit: number): GraphHit[] {
      if (queryWords.length === 0) return [];
      const hits = localText ? null : words().nearest(queryWords, limit);
      return hits ?? self.lexicalIdeas(anyOfWords(queryWords), {}, limit);
    },

    /** Sets the words around ideas (the columns given; the others stay). */
    setContext(ids: readonly number[], context: IdeaContext): void {
      const columns = (['turn', 'near', 'far'] as const).filter((c) => context[c] !== undefined);
      if (columns.length === 0) return;
      // One statement for all the columns: a full-text row is rewritten whole on each update.
      const stmt = cached(
        localText
          ? `UPDATE idea_context SET ${columns.map((c) => `${c} = ?`).join(', ')} WHERE idea_id = ?`
          : `UPDATE ideas_fts SET ${columns.map((c) => `${c} = ?`).join(', ')} WHERE rowid = ?`,
      );
      const texts = columns.map((c) => context[c]!);
      for (const id of ids) stmt.run(...texts, id);
      wordsOf.get(db)?.set(
        ids,
        columns.map((c) => [c, context[c]!]),
      );
    },

    /** Adds words to what is around ideas (a turn said after them). */
    addContext(ids: readonly number[], column: 'near' | 'far', text: string): void {
      const stmt = cached(
        localText
          ? `UPDATE idea_context SET ${column} = trim(${column} || ' ' || ?) WHERE idea_id = ?`
          : `UPDATE ideas_fts SET ${column} = trim(${column} || ' ' || ?) WHERE rowid = ?`,
      );
      for (const id of ids) stmt.run(text, id);
      wordsOf.get(db)?.append(ids, column, text);
    },

    /** Spans whose name or summary match, best first (the name weighs more). */
    lexicalSpans(match: string, limit: number, sessions?: readonly string[]): GraphHit[] {
      if (match === '') return [];
      const { sql, params } = filterSql(sessions ? { sessions } : {}, 's');
      if (localText) {
        const keep = (ids: number[]) => {
          const rows = db
            .prepare(
              `SELECT s.id FROM spans s WHERE s.id IN (${ids.map(() => '?').join(',')})${sql}`,
            )
            .all(...ids, ...params) as { id: number }[];
          return new Set(rows.map((r) => r.id));
        };
        return keepRanked(ranked('spans_fts', 'bm25(spans_fts, 2.0, 1.0)', match), keep, limit);
      }
      return cached(`SELECT f.rowid AS id, bm25(spans_fts, 2.0, 1.0) AS bm25 FROM spans_fts f
        JOIN spans s ON s.id = f.rowid WHERE spans_fts MATCH ?${sql} ORDER BY bm25 LIMIT ?`).all(
        match,
        ...params,
        limit,
      ) as GraphHit[];
    },

    /** Ideas naming any of these entities within the filter, newest first. */
    ideasOfEntities(entityIds: readonly number[], filter: IdeaFilter, limit: number): number[] {
      if (entityIds.length === 0) return [];
      const { sql, params } = filterSql(filter, 'i');
      return (
        db
          .prepare(
            // created_at is selected too: PostgreSQL orders a DISTINCT by selected columns only.
            `SELECT DISTINCT i.id, i.created_at FROM idea_entities l JOIN ideas i ON i.id = l.idea_id
             WHERE l.entity_id IN (${entityIds.map(() => '?').join(',')})${sql}
             ORDER BY i.created_at DESC, i.id DESC LIMIT ?`,
          )
          .all(...entityIds, ...params, limit) as { id: number }[]
      ).map((r) => r.id);
    },

    /** The newest ideas within the filter (a query that is only a filter: "open questions"). */
    latestIdeas(filter: IdeaFilter, limit: number): number[] {
      const { sql, params } = filterSql(filter, 'i');
      return (
        cached(`SELECT i.id FROM ideas i WHERE 1 = 1${sql}
          ORDER BY i.created_at DESC, i.id DESC LIMIT ?`).all(...params, limit) as { id: number }[]
      ).map((r) => r.id);
    },

    /** Which of these ideas pass the filter. */
    ideasWhere(ids: readonly number[], filter: IdeaFilter): Set<number> {
      const out = new Set<number>();
      if (ids.length === 0) return out;
      const { sql, params } = filterSql(filter, 'i');
      for (let k = 0; k < ids.length; k += 500) {
        const chunk = ids.slice(k, k + 500);
        const rows = db
          .prepare(
            `SELECT i.id FROM ideas i WHERE i.id IN (${chunk.map(() => '?').join(',')})${sql}`,
          )
          .all(...chunk, ...params) as { id: number }[];
        for (const r of rows) out.add(r.id);
      }
      return out;
    },

    /** The text of the turn each idea was said in (what its `turn` column holds). */
    turnTexts(ids: readonly number[]): Map<number, string> {
      const out = new Map<number, string>();
      for (let k = 0; k < ids.length; k += 500) {
        const chunk = ids.slice(k, k + 500);
        const rows = db
          .prepare(
            localText
              ? `SELECT idea_id AS id, turn FROM idea_context
                 WHERE idea_id IN (${chunk.map(() => '?').join(',')})`
              : `SELECT rowid AS id, turn FROM ideas_fts WHERE rowid IN (${chunk.map(() => '?').join(',')})`,
          )
          .all(...chunk) as { id: number; turn: string }[];
        for (const r of rows) out.set(r.id, r.turn);
      }
      return out;
    },

    /** How many ideas the filter selects (small sets are ranked exactly). */
    countIdeas(filter: IdeaFilter): number {
      const { sql, params } = filterSql(filter, 'i');
      return (
        cached(`SELECT COUNT(*) AS n FROM ideas i WHERE 1 = 1${sql}`).get(...params) as {
          n: number;
        }
      ).n;
    },

    /** Vectors of the ideas within the filter (an exact scan of a narrowed search). */
    ideaVectorsWhere(filter: IdeaFilter, model: string, limit: number): GraphStoredVector[] {
      const { sql, params } = filterSql(filter, 'i');
      return cached(`SELECT v.id, v.idea_id AS memoryId, v.vector FROM idea_vectors v
        JOIN ideas i ON i.id = v.idea_id WHERE v.model = ?${sql} LIMIT ?`).all(
        model,
        ...params,
        limit,
      ) as GraphStoredVector[];
    },

    ideaVectorsOf: (ids: readonly number[], model: string) => vectorsOf('idea_vectors', ids, model),
    spanVectorsOf: (ids: readonly number[], model: string) => vectorsOf('span_vectors', ids, model),

    /** Watches of the vectors (see SearchStore.vectorWatch). */
    ideaVectorWatch: () => tableWatch(db, 'idea_vectors'),
    spanVectorWatch: () => tableWatch(db, 'span_vectors'),

    /** Idea vectors written after `afterId`, for the in-memory index to catch up. */
    ideaVectorsSince(afterId: number, model: string): GraphStoredVector[] {
      return cached(`SELECT id, idea_id AS memoryId, vector FROM idea_vectors
        WHERE id > ? AND model = ? ORDER BY id`).all(afterId, model) as GraphStoredVector[];
    },

    spanVectorsSince(afterId: number, model: string): GraphStoredVector[] {
      return cached(`SELECT id, span_id AS memoryId, vector FROM span_vectors
        WHERE id > ? AND model = ? ORDER BY id`).all(afterId, model) as GraphStoredVector[];
    },

    putIdeaVectors(
      rows: readonly { id: number; vector: Buffer }[],
      model: string,
      dimension: number,
      at: number,
    ): void {
      putIdeas(rows, model, dimension, at);
    },

    putSpanVectors(
      rows: readonly { id: number; vector: Buffer }[],
      model: string,
      dimension: number,
      at: number,
    ): void {
      putSpans(rows, model, dimension, at);
    },

    /** Ideas with no vector from this model, oldest first (embedded later by `graph index`). */
    pendingIdeas(model: string, limit: number): { id: number; content: string }[] {
      return cached(`SELECT i.id, i.content FROM ideas i WHERE NOT EXISTS
        (SELECT 1 FROM idea_vectors v WHERE v.idea_id = i.id AND v.model = ?)
        ORDER BY i.id LIMIT ?`).all(model, limit) as { id: number; content: string }[];
    },

    pendingSpans(
      model: string,
      limit: number,
    ): { id: number; name: string; summary: string | null }[] {
      return cached(`SELECT s.id, s.name, s.summary FROM spans s WHERE NOT EXISTS
        (SELECT 1 FROM span_vectors v WHERE v.span_id = s.id AND v.model = ?)
        ORDER BY s.id LIMIT ?`).all(model, limit) as {
        id: number;
        name: string;
        summary: string | null;
      }[];
    },
  };
  return self;
}

export type GraphSearchStore = ReturnType<typeof createGraphSearchStore>;
