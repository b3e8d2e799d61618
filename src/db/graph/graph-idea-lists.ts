/** Ideas the graph's ranking narrows to: by entity, newest, within a filter, and how many. */
import { allAwaited, getAwaited } from '../engine.js';
import type { Db } from '../open.js';
import { filterSql } from './graph-filter.js';
import { chunkedAwaited, placeholders } from './graph-row-sql.js';
import type { IdeaFilter } from './graph-search-types.js';

export function createGraphIdeaLists(db: Db, cached: (sql: string) => ReturnType<Db['prepare']>) {
  return {
    /** Ideas naming any of these entities within the filter, newest first. */
    async ideasOfEntities(
      entityIds: readonly number[],
      filter: IdeaFilter,
      limit: number,
    ): Promise<number[]> {
      if (entityIds.length === 0) return [];
      const { sql, params } = filterSql(filter, 'i');
      const stmt = db.prepare(
        // created_at is selected too: PostgreSQL orders a DISTINCT by selected columns only.
        `SELECT DISTINCT i.id, i.created_at FROM idea_entities l JOIN ideas i ON i.id = l.idea_id
         WHERE l.entity_id IN (${placeholders(entityIds.length)})${sql}
         ORDER BY i.created_at DESC, i.id DESC LIMIT ?`,
      );
      const rows = (await allAwaited(stmt, ...entityIds, ...params, limit)) as { id: number }[];
      return rows.map((r) => r.id);
    },

    /** The newest ideas within the filter (a query that is only a filter: "open questions"). */
    async latestIdeas(filter: IdeaFilter, limit: number): Promise<number[]> {
      const { sql, params } = filterSql(filter, 'i');
      const stmt = cached(`SELECT i.id FROM ideas i WHERE 1 = 1${sql}
          ORDER BY i.created_at DESC, i.id DESC LIMIT ?`);
      return ((await allAwaited(stmt, ...params, limit)) as { id: number }[]).map((r) => r.id);
    },

    /** Which of these ideas pass the filter. */
    async ideasWhere(ids: readonly number[], filter: IdeaFilter): Promise<Set<number>> {
      if (ids.length === 0) return new Set();
      const { sql, params } = filterSql(filter, 'i');
      const rows = await chunkedAwaited(
        ids,
        async (chunk) =>
          (await allAwaited(
            db.prepare(
              `SELECT i.id FROM ideas i WHERE i.id IN (${placeholders(chunk.length)})${sql}`,
            ),
            ...chunk,
            ...params,
          )) as { id: number }[],
      );
      return new Set(rows.map((r) => r.id));
    },

    /** How many ideas the filter selects (small sets are ranked exactly). */
    async countIdeas(filter: IdeaFilter): Promise<number> {
      const { sql, params } = filterSql(filter, 'i');
      const stmt = cached(`SELECT COUNT(*) AS n FROM ideas i WHERE 1 = 1${sql}`);
      return ((await getAwaited(stmt, ...params)) as { n: number }).n;
    },
  };
}
