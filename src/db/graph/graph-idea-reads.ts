/**
 * The memory graph's ideas read in the order they were said: of spans, of a session, the latest, the turn after.
 */
import type { Db } from '../open.js';
import { IDEA_COLUMNS, type IdeaRecord, toIdea, placeholders, chunked } from './graph-row-sql.js';
import { type Intent, type IdeaRow } from './graph-rows.js';
export function createIdeaReads(db: Db, cached: (sql: string) => ReturnType<Db['prepare']>) {
  return {
    /** Ideas of these spans in the order they were said, optionally of some intents only. */
    ideasOfSpans(spanIds: readonly number[], intents?: readonly Intent[]): IdeaRow[] {
      if (spanIds.length === 0) return [];
      const byIntent = intents && intents.length > 0;
      return chunked(spanIds, (chunk) =>
        (
          db
            .prepare(
              `SELECT ${IDEA_COLUMNS} FROM ideas i WHERE i.span_id IN (${placeholders(chunk.length)})
               ${byIntent ? `AND i.intent IN (${placeholders(intents.length)})` : ''}
               ORDER BY i.source_file, i.source_line, i.id`,
            )
            .all(...chunk, ...(byIntent ? intents : [])) as IdeaRecord[]
        ).map(toIdea),
      ).sort((a, b) => a.createdAt - b.createdAt || a.sourceLine - b.sourceLine || a.id - b.id);
    },

    /** The latest ideas of a session, newest first (relation detection looks back over these). */
    recentIdeas(session: string, limit: number): IdeaRow[] {
      return (
        cached(
          `SELECT ${IDEA_COLUMNS} FROM ideas i WHERE i.session = ? ORDER BY i.source_line DESC, i.id DESC LIMIT ?`,
        ).all(session, limit) as IdeaRecord[]
      ).map(toIdea);
    },

    /** Ids of the latest ideas of a session, newest first (as `recentIdeas` orders them). */
    recentIdeaIds(session: string, limit: number): number[] {
      return (
        cached(
          'SELECT id FROM ideas WHERE session = ? ORDER BY source_line DESC, id DESC LIMIT ?',
        ).all(session, limit) as { id: number }[]
      ).map((r) => r.id);
    },

    /**
     * The ideas of the turn said right after a line of a session, within the same span (a turn
     * across a topic shift is not its reply).
     */
    turnAfter(session: string, line: number, spanId: number | null): IdeaRow[] {
      return (
        cached(
          `SELECT ${IDEA_COLUMNS} FROM ideas i WHERE i.session = @session AND i.span_id IS @spanId
             AND i.source_line = (SELECT MIN(source_line) FROM ideas
               WHERE session = @session AND source_line > @line)
           ORDER BY i.id`,
        ).all({ session, line, spanId }) as IdeaRecord[]
      ).map(toIdea);
    },

    /** Ideas of a session, in order, optionally of some intents only (session pages). */
    ideasOfSession(session: string, intents?: readonly Intent[]): IdeaRow[] {
      const byIntent = intents && intents.length > 0;
      return (
        db
          .prepare(
            `SELECT ${IDEA_COLUMNS} FROM ideas i WHERE i.session = ?
             ${byIntent ? `AND i.intent IN (${placeholders(intents.length)})` : ''}
             ORDER BY i.source_line, i.id`,
          )
          .all(session, ...(byIntent ? intents : [])) as IdeaRecord[]
      ).map(toIdea);
    },
  };
}
