/**
 * The memory graph's ideas: written as a transcript is read, and read by span, session or id.
 */
import { allAwaited, getAwaited } from '../engine.js';
import type { Db } from '../open.js';
import {
  chunked,
  chunkedAwaited,
  IDEA_COLUMNS,
  type IdeaRecord,
  placeholders,
  toIdea,
} from './graph-row-sql.js';
import { type IdeaRow, type NewIdea } from './graph-rows.js';

/** `cached`: the store's statement cache (open.ts statementCache), shared by its parts. */
export function createIdeaRows(db: Db, cached: (sql: string) => ReturnType<Db['prepare']>) {
  const insertIdea = db.prepare(`INSERT INTO ideas (span_id, session, content, intent, confidence,
      answered, role, source_file, source_line, created_at)
    VALUES (@spanId, @session, @content, @intent, @confidence, @answered, @role, @sourceFile,
      @sourceLine, @createdAt)`);
  const byIds = (n: number) =>
    `SELECT ${IDEA_COLUMNS} FROM ideas i WHERE i.id IN (${placeholders(n)})`;
  return {
    insertIdea(i: NewIdea): number {
      return Number(
        insertIdea.run({ ...i, answered: i.answered === null ? null : i.answered ? 1 : 0 })
          .lastInsertRowid,
      );
    },

    setAnswered(id: number, answered: boolean): void {
      cached("UPDATE ideas SET answered = ? WHERE id = ? AND intent = 'question'").run(
        answered ? 1 : 0,
        id,
      );
    },

    async idea(id: number): Promise<IdeaRow | null> {
      const row = (await getAwaited(
        cached(`SELECT ${IDEA_COLUMNS} FROM ideas i WHERE i.id = ?`),
        id,
      )) as IdeaRecord | undefined;
      return row ? toIdea(row) : null;
    },

    /**
     * Ideas by id, read at once: indexing compares a new idea with those its own transaction
     * has just written (candidates.ts), which only a read on that transaction's connection sees.
     * Everything else reads `ideasAwaited`.
     */
    ideas(ids: readonly number[]): IdeaRow[] {
      return chunked(ids, (chunk) =>
        (cached(byIds(chunk.length)).all(...chunk) as IdeaRecord[]).map(toIdea),
      );
    },

    /** Ideas by id, awaited (committed rows only). */
    ideasAwaited(ids: readonly number[]): Promise<IdeaRow[]> {
      return chunkedAwaited(ids, async (chunk) =>
        ((await allAwaited(cached(byIds(chunk.length)), ...chunk)) as IdeaRecord[]).map(toIdea),
      );
    },
  };
}
