/**
 * The memory graph's full text: ideas and spans matched by words (FTS5, kept in step by the
 * triggers of migration 0010), the ideas nearest some words while indexing (graph-words.ts), and
 * the words around each idea. On PostgreSQL the words are matched and ranked in this instance's
 * own copies of ideas_fts and spans_fts (postgres/local-text-index.ts), the same FTS5 tables as
 * SQLite's; the words around an idea are kept in idea_context, and the filter runs in PostgreSQL.
 */
import { allAwaited } from '../engine.js';
import { anyOfWords } from '../fts-query.js';
import { type Db, engineOf } from '../open.js';
import type { PostgresDb } from '../postgres/database.js';
import { keepRanked, keepRankedAwaited } from '../postgres/keep-ranked.js';
import { localTextIndex } from '../postgres/local-text-index.js';
import { filterSql } from './graph-filter.js';
import { chunkedAwaited, placeholders } from './graph-row-sql.js';
import {
  type GraphHit,
  IDEA_COLUMN_WEIGHTS,
  type IdeaContext,
  type IdeaFilter,
  type IdeaHit,
} from './graph-search-types.js';
import { createIdeaWords, type IdeaWords } from './graph-words.js';
import { type ContextWrites, createContextWrites } from './idea-context-writes.js';

/** One in-memory copy of ideas_fts's words per connection (graph-words.ts), made on first use. */
const wordsOf = new WeakMap<Db, IdeaWords>();
/** The words around ideas not written yet, per connection (idea-context-writes.ts). */
const writesOf = new WeakMap<Db, ContextWrites>();

export function createGraphTextSearch(db: Db, cached: (sql: string) => ReturnType<Db['prepare']>) {
  const localText = engineOf(db) === 'postgres' ? localTextIndex(db as PostgresDb) : null;
  const ranked = (table: 'ideas_fts' | 'spans_fts', bm25: string, match: string) => {
    const stmt = localText!.current(table).prepare(
      `SELECT rowid AS id, ${bm25} AS bm25 FROM ${table} WHERE ${table} MATCH ?
        ORDER BY bm25 LIMIT ? OFFSET ?`,
    );
    return (n: number, skip: number) => stmt.all(match, n, skip) as GraphHit[];
  };

  let writes = writesOf.get(db);
  if (!writes) {
    writes = createContextWrites(cached, localText !== null);
    writesOf.set(db, writes);
  }
  const pending = writes;
  /** Before anything reads the words around ideas from the database. */
  const flush = () => {
    if (!pending.waiting) return;
    pending.flush();
    wordsOf.get(db)?.flushed();
  };

  const words = () => {
    let w = wordsOf.get(db);
    if (!w) {
      w = createIdeaWords(db, IDEA_COLUMN_WEIGHTS, flush);
      wordsOf.set(db, w);
    }
    return w;
  };

  /** The statements of an idea search: FTS5 joined with the filter, or its check on PostgreSQL. */
  const ideaSearch = (filter: IdeaFilter, weights: readonly number[]) => {
    const { sql, params } = filterSql(filter, 'i');
    const bm25 = `bm25(ideas_fts, ${weights.map((w) => Number(w).toFixed(3)).join(', ')})`;
    const spans = new Map<number, number | null>();
    return {
      bm25,
      params,
      joined: () =>
        cached(`SELECT f.rowid AS id, ${bm25} AS bm25, i.span_id AS spanId
          FROM ideas_fts f JOIN ideas i ON i.id = f.rowid WHERE ideas_fts MATCH ?${sql}
          ORDER BY bm25 LIMIT ?`),
      check: (ids: readonly number[]) =>
        db.prepare(`SELECT i.id, i.span_id AS spanId FROM ideas i
          WHERE i.id IN (${placeholders(ids.length)})${sql}`),
      /** What a check let through; its spans kept for the hits. */
      passed: (rows: { id: number; spanId: number | null }[]) => {
        for (const r of rows) spans.set(r.id, r.spanId);
        return new Set(rows.map((r) => r.id));
      },
      withSpans: (hits: GraphHit[]): IdeaHit[] =>
        hits.map((h) => ({ ...h, spanId: spans.get(h.id) ?? null })),
    };
  };

  const self = {
    /**
     * Ideas matching an FTS5 query (by their words or the words around them), best first, read
     * at once: indexing asks within its transaction (`nearestByWords` on PostgreSQL), for the
     * ideas it has just written too. Everything else reads `lexicalIdeasAwaited`.
     */
    lexicalIdeas(
      match: string,
      filter: IdeaFilter,
      limit: number,
      weights: readonly number[] = IDEA_COLUMN_WEIGHTS,
    ): IdeaHit[] {
      if (match === '') return [];
      flush();
      const q = ideaSearch(filter, weights);
      if (localText) {
        const keep = (ids: number[]) =>
          q.passed(
            q.check(ids).all(...ids, ...q.params) as { id: number; spanId: number | null }[],
          );
        return q.withSpans(keepRanked(ranked('ideas_fts', q.bm25, match), keep, limit));
      }
      return q.joined().all(match, ...q.params, limit) as IdeaHit[];
    },

    /** The same, awaited (committed rows only): remember's list of ideas by their words. */
    async lexicalIdeasAwaited(
      match: string,
      filter: IdeaFilter,
      limit: number,
      weights: readonly number[] = IDEA_COLUMN_WEIGHTS,
    ): Promise<IdeaHit[]> {
      if (match === '') return [];
      flush();
      const q = ideaSearch(filter, weights);
      if (localText) {
        await localText.currentAwaited('ideas_fts');
        const keep = async (ids: number[]) =>
          q.passed(
            (await allAwaited(q.check(ids), ...ids, ...q.params)) as {
              id: number;
              spanId: number | null;
            }[],
          );
        return q.withSpans(
          await keepRankedAwaited(ranked('ideas_fts', q.bm25, match), keep, limit),
        );
      }
      return (await allAwaited(q.joined(), match, ...q.params, limit)) as IdeaHit[];
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

    /** Words that indexing will write or ask soon, tokenized together (SQLite only). */
    primeWords(texts: readonly string[]): void {
      if (!localText && texts.length > 0) words().prime(texts);
    },

    /** Sets the words around ideas (the columns given; the others stay), written by `flushContext`. */
    setContext(ids: readonly number[], context: IdeaContext): void {
      const columns = (['turn', 'near', 'far'] as const)
        .filter((c) => context[c] !== undefined)
        .map((c): ['turn' | 'near' | 'far', string] => [c, context[c]!]);
      if (columns.length === 0) return;
      pending.set(ids, columns);
      wordsOf.get(db)?.set(ids, columns);
    },

    /** Adds words to what is around ideas (a turn said after them), written by `flushContext`. */
    addContext(ids: readonly number[], column: 'near' | 'far', text: string): void {
      pending.append(ids, column, text);
      wordsOf.get(db)?.append(ids, column, text);
    },

    /** Writes the words around ideas set or added since (an idea's row once), in the caller's transaction. */
    flushContext: flush,

    /** Forgets the words around ideas not written yet: their transaction rolled back. */
    dropContext(): void {
      pending.drop();
    },

    /** Spans whose name or summary match, best first (the name weighs more). */
    async lexicalSpans(
      match: string,
      limit: number,
      sessions?: readonly string[],
    ): Promise<GraphHit[]> {
      if (match === '') return [];
      const { sql, params } = filterSql(sessions ? { sessions } : {}, 's');
      if (localText) {
        await localText.currentAwaited('spans_fts');
        const keep = async (ids: number[]) => {
          const stmt = db.prepare(
            `SELECT s.id FROM spans s WHERE s.id IN (${placeholders(ids.length)})${sql}`,
          );
          const rows = (await allAwaited(stmt, ...ids, ...params)) as { id: number }[];
          return new Set(rows.map((r) => r.id));
        };
        return keepRankedAwaited(
          ranked('spans_fts', 'bm25(spans_fts, 2.0, 1.0)', match),
          keep,
          limit,
        );
      }
      const stmt = cached(`SELECT f.rowid AS id, bm25(spans_fts, 2.0, 1.0) AS bm25 FROM spans_fts f
        JOIN spans s ON s.id = f.rowid WHERE spans_fts MATCH ?${sql} ORDER BY bm25 LIMIT ?`);
      return (await allAwaited(stmt, match, ...params, limit)) as GraphHit[];
    },

    /** The text of the turn each idea was said in (what its `turn` column holds). */
    async turnTexts(ids: readonly number[]): Promise<Map<number, string>> {
      flush();
      const rows = await chunkedAwaited(
        ids,
        async (chunk) =>
          (await allAwaited(
            db.prepare(
              localText
                ? `SELECT idea_id AS id, turn FROM idea_context
                   WHERE idea_id IN (${placeholders(chunk.length)})`
                : `SELECT rowid AS id, turn FROM ideas_fts WHERE rowid IN (${placeholders(chunk.length)})`,
            ),
            ...chunk,
          )) as { id: number; turn: string }[],
      );
      return new Map(rows.map((r) => [r.id, r.turn]));
    },
  };
  return self;
}
