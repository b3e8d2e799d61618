/**
 * Which ideas name an entity, and how many: an entity's page and remember's entity list (the
 * Graph page's entities are weighed by evidence, graph-repeats.ts).
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
import { type IdeaRow } from './graph-rows.js';

export function createEntityIdeaRows(db: Db, cached: (sql: string) => ReturnType<Db['prepare']>) {
  return {
    /** Every idea that names an entity, newest first. */
    async ideasOfEntity(entityId: number, limit = 500): Promise<IdeaRow[]> {
      const stmt =
        cached(`SELECT ${IDEA_COLUMNS} FROM idea_entities l JOIN ideas i ON i.id = l.idea_id
          WHERE l.entity_id = ? ORDER BY i.created_at DESC, i.id DESC LIMIT ?`);
      return ((await allAwaited(stmt, entityId, limit)) as IdeaRecord[]).map(toIdea);
    },

    /** How many ideas name each of these entities. */
    async ideaCounts(entityIds: readonly number[]): Promise<Map<number, number>> {
      const rows = await chunkedAwaited(
        entityIds,
        async (chunk) =>
          (await allAwaited(
            db.prepare(
              `SELECT entity_id AS id, COUNT(*) AS n FROM idea_entities
               WHERE entity_id IN (${placeholders(chunk.length)}) GROUP BY entity_id`,
            ),
            ...chunk,
          )) as { id: number; n: number }[],
      );
      return new Map(rows.map((r) => [r.id, r.n]));
    },
  };
}
