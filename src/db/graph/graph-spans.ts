/**
 * The memory graph's spans: a tree of topics and sub-spans per session, in the order said.
 */
import { allAwaited, getAwaited } from '../engine.js';
import type { Db } from '../open.js';
import { chunkedAwaited, placeholders, SPAN_COLUMNS } from './graph-row-sql.js';
import { type SpanRow, type NewSpan } from './graph-rows.js';

/** `cached`: the store's statement cache (open.ts statementCache), shared by its parts. */
export function createSpanRows(db: Db, cached: (sql: string) => ReturnType<Db['prepare']>) {
  const insertSpan = db.prepare(`INSERT INTO spans (session, parent_id, name, summary, source_file,
      start_line, end_line, depth, created_at, ended_at)
    VALUES (@session, @parentId, @name, @summary, @sourceFile, @startLine, @endLine, @depth,
      @createdAt, @endedAt)`);
  return {
    insertSpan(s: NewSpan): number {
      return Number(insertSpan.run(s).lastInsertRowid);
    },

    updateSpan(
      id: number,
      patch: Partial<Pick<SpanRow, 'name' | 'summary' | 'endLine' | 'endedAt' | 'parentId'>>,
    ): void {
      const sets: string[] = [];
      const params: (string | number | null)[] = [];
      const column = {
        name: 'name',
        summary: 'summary',
        endLine: 'end_line',
        endedAt: 'ended_at',
        parentId: 'parent_id',
      } as const;
      for (const key of Object.keys(column) as (keyof typeof column)[]) {
        if (patch[key] === undefined) continue;
        sets.push(`${column[key]} = ?`);
        params.push(patch[key]);
      }
      if (sets.length === 0) return;
      cached(`UPDATE spans SET ${sets.join(', ')} WHERE id = ?`).run(...params, id);
    },

    async span(id: number): Promise<SpanRow | null> {
      const stmt = cached(`SELECT ${SPAN_COLUMNS} FROM spans WHERE id = ?`);
      return ((await getAwaited(stmt, id)) as SpanRow | undefined) ?? null;
    },

    spans(ids: readonly number[]): Promise<SpanRow[]> {
      return chunkedAwaited(
        [...new Set(ids)],
        async (chunk) =>
          (await allAwaited(
            db.prepare(
              `SELECT ${SPAN_COLUMNS} FROM spans WHERE id IN (${placeholders(chunk.length)})`,
            ),
            ...chunk,
          )) as SpanRow[],
      );
    },

    /** A session's spans in the order they were said (topics and their sub-spans). */
    async spansOfSession(session: string): Promise<SpanRow[]> {
      const stmt = cached(
        `SELECT ${SPAN_COLUMNS} FROM spans WHERE session = ? ORDER BY start_line, depth, id`,
      );
      return (await allAwaited(stmt, session)) as SpanRow[];
    },

    /** Ideas of a span move to another (a topic split into sub-spans), from a line on. */
    moveIdeas(fromSpanId: number, toSpanId: number, fromLine = 0): void {
      cached('UPDATE ideas SET span_id = ? WHERE span_id = ? AND source_line >= ?').run(
        toSpanId,
        fromSpanId,
        fromLine,
      );
    },
  };
}
