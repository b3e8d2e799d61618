/**
 * The memory graph's ideas read in the order they were said: of spans, of a session, the
 * latest, the turn after.
 */
import { allAwaited } from '../engine.js';
import type { Db } from '../open.js';
import {
  chunkedAwaited,
  IDEA_COLUMNS,
  type IdeaRecord,
  placeholders,
  toIdea,
} from './graph-row-sql.js';
import { type IdeaRow, type Intent } from './graph-rows.js';

export function createIdeaReads(db: Db, cached: (sql: string) => ReturnType<Db['prepare']>) {
  return {
    /** Ideas of these spans in the order they were said, optionally of some intents only. */
    async ideasOfSpans(
      spanIds: readonly number[],
      intents?: readonly Intent[],
    ): Promise<IdeaRow[]> {
      if (spanIds.length === 0) return [];
      const byIntent = intents && intents.length > 0;
      const rows = await chunkedAwaited(spanIds, async (chunk) =>
        (
          (await allAwaited(
            db.prepare(
              `SELECT ${IDEA_COLUMNS} FROM ideas i WHERE i.span_id IN (${placeholders(chunk.length)})
               ${byIntent ? `AND i.intent IN (${placeholders(intents.length)})` : ''}
               ORDER BY i.source_file, i.source_line, i.id`,
            ),
            ...chunk,
            ...(byIntent ? intents : []),
          )) as IdeaRecord[]
        ).map(toIdea),
      );
      return rows.sort(
        (a, b) => a.createdAt - b.createdAt || a.sourceLine - b.sourceLine || a.id - b.id,
      );
    },

    /** The latest ideas of a session, newest first (relation detection looks back over these). */
    recentIdeas(session: string, limit: number): IdeaRow[] {
      return (
        cached(
          `SELECT ${IDEA_COLUMNS} FROM ideas i WHERE i.session = ? ORDER BY i.source_line DESC, i.id DESC LIMIT ?`,
        ).all(session, limit) as IdeaRecord[]
      ).map(toIdea);
    },

    /**
     * Ids of the latest ideas of a session, newest first (as `recentIdeas` orders them). Read at
     * once: indexing asks within its transaction, for the ideas it has just written too.
     */
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
    async turnAfter(session: string, line: number, spanId: number | null): Promise<IdeaRow[]> {
      const stmt = cached(
        `SELECT ${IDEA_COLUMNS} FROM ideas i WHERE i.session = @session AND i.span_id IS @spanId
           AND i.source_line = (SELECT MIN(source_line) FROM ideas
             WHERE session = @session AND source_line > @line)
         ORDER BY i.id`,
      );
      return ((await allAwaited(stmt, { session, line, spanId })) as IdeaRecord[]).map(toIdea);
    },

    /** Ideas of a session, in order, optionally of some intents only (session pages). */
    async ideasOfSession(session: string, intents?: readonly Intent[]): Promise<IdeaRow[]> {
      const byIntent = intents && intents.length > 0;
      const stmt = db.prepare(
        `SELECT ${IDEA_COLUMNS} FROM ideas i WHERE i.session = ?
         ${byIntent ? `AND i.intent IN (${placeholders(intents.length)})` : ''}
         ORDER BY i.source_line, i.id`,
      );
      return ((await allAwaited(stmt, session, ...(byIntent ? intents : []))) as IdeaRecord[]).map(
        toIdea,
      );
    },
  };
}
