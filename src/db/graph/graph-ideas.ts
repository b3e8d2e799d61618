/**
 * The memory graph's ideas: written as a transcript is read, and read by span, session or id.
 */
import type { Db } from '../open.js';
import { IDEA_COLUMNS, type IdeaRecord, toIdea, placeholders, chunked } from './graph-row-sql.js';
import { type IdeaRow, type NewIdea } from './graph-rows.js';

/** `cached`: the store's statement cache (open.ts statementCache), shared by its parts. */
export function createIdeaRows(db: Db, cached: (sql: string) => ReturnType<Db['prepare']>) {
  const insertIdea = db.prepare(`INSERT INTO ideas (span_id, session, content, intent, confidence,
      answered, role, source_file, source_line, created_at)
    VALUES (@spanId, @session, @content, @intent, @confidence, @answered, @role, @sourceFile,
      @sourceLine, @createdAt)`);
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

    idea(id: number): IdeaRow | null {
      const row = cached(`SELECT ${IDEA_COLUMNS} FROM ideas i WHERE i.id = ?`).get(id) as
        IdeaRecord | undefined;
      return row ? toIdea(row) : null;
    },

    ideas(ids: readonly number[]): IdeaRow[] {
      return chunked(ids, (chunk) =>
        (
          cached(
            `SELECT ${IDEA_COLUMNS} FROM ideas i WHERE i.id IN (${placeholders(chunk.length)})`,
          ).all(...chunk) as IdeaRecord[]
        ).map(toIdea),
      );
    },
  };
}
