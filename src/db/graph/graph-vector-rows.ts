/**
 * One vector per idea and per span summary, by embedding model: written as ideas are embedded,
 * read back for ranking and by the in-memory index (knowledge/vector-index.ts) as it catches up.
 */
import { allAwaited } from '../engine.js';
import type { Db } from '../open.js';
import { tableWatch } from '../postgres/change-watch.js';
import { filterSql } from './graph-filter.js';
import { chunkedAwaited, placeholders } from './graph-row-sql.js';
import type { GraphStoredVector, IdeaFilter } from './graph-search-types.js';

type VectorTable = 'idea_vectors' | 'span_vectors';
const REF: Record<VectorTable, string> = { idea_vectors: 'idea_id', span_vectors: 'span_id' };

export function createGraphVectorRows(db: Db, cached: (sql: string) => ReturnType<Db['prepare']>) {
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

  type Vector = { ref: number; vector: Uint8Array };
  const vectorsIn = (table: VectorTable, n: number) =>
    cached(`SELECT ${REF[table]} AS ref, vector FROM ${table}
      WHERE model = ? AND ${REF[table]} IN (${placeholders(n)})`);
  const byRef = (rows: readonly Vector[]) => new Map(rows.map((r) => [r.ref, r.vector]));
  const vectorsOf = (table: VectorTable, ids: readonly number[], model: string) => {
    const rows: Vector[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      rows.push(...(vectorsIn(table, chunk.length).all(model, ...chunk) as Vector[]));
    }
    return byRef(rows);
  };
  const vectorsOfAwaited = async (table: VectorTable, ids: readonly number[], model: string) =>
    byRef(
      await chunkedAwaited(
        ids,
        async (chunk) =>
          (await allAwaited(vectorsIn(table, chunk.length), model, ...chunk)) as Vector[],
      ),
    );
  const since = (table: VectorTable) =>
    cached(`SELECT id, ${REF[table]} AS memoryId, vector FROM ${table}
      WHERE id > ? AND model = ? ORDER BY id`);

  return {
    /** Vectors of the ideas within the filter (an exact scan of a narrowed search). */
    async ideaVectorsWhere(
      filter: IdeaFilter,
      model: string,
      limit: number,
    ): Promise<GraphStoredVector[]> {
      const { sql, params } = filterSql(filter, 'i');
      const stmt = cached(`SELECT v.id, v.idea_id AS memoryId, v.vector FROM idea_vectors v
        JOIN ideas i ON i.id = v.idea_id WHERE v.model = ?${sql} LIMIT ?`);
      return (await allAwaited(stmt, model, ...params, limit)) as GraphStoredVector[];
    },

    /**
     * Vectors of these ideas, read at once: indexing compares a new idea with those its own
     * transaction has just written (candidates.ts). Everything else reads the awaited form.
     */
    ideaVectorsOf: (ids: readonly number[], model: string) => vectorsOf('idea_vectors', ids, model),
    ideaVectorsOfAwaited: (ids: readonly number[], model: string) =>
      vectorsOfAwaited('idea_vectors', ids, model),
    spanVectorsOf: (ids: readonly number[], model: string) =>
      vectorsOfAwaited('span_vectors', ids, model),

    /** Watches of the vectors (see SearchStore.vectorWatch). */
    ideaVectorWatch: () => tableWatch(db, 'idea_vectors'),
    spanVectorWatch: () => tableWatch(db, 'span_vectors'),

    /**
     * Idea vectors written after `afterId`, for the in-memory index to catch up: at once when
     * indexing looks for a new idea's nearest within its transaction (which wrote some of
     * them), awaited for a search.
     */
    ideaVectorsSince(afterId: number, model: string): GraphStoredVector[] {
      return since('idea_vectors').all(afterId, model) as GraphStoredVector[];
    },

    async ideaVectorsSinceAwaited(afterId: number, model: string): Promise<GraphStoredVector[]> {
      return (await allAwaited(since('idea_vectors'), afterId, model)) as GraphStoredVector[];
    },

    /** Span vectors written after `afterId` (only a search reads the spans' index). */
    async spanVectorsSince(afterId: number, model: string): Promise<GraphStoredVector[]> {
      return (await allAwaited(since('span_vectors'), afterId, model)) as GraphStoredVector[];
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
}
