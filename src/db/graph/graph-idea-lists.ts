/** Ideas the graph's ranking narrows to: by entity, newest, within a filter, and how many. */
import type { Db } from '../open.js';
import { filterSql } from './graph-filter.js';
import type { IdeaFilter } from './graph-search-types.js';

export function createGraphIdeaLists(db: Db, cached: (sql: string) => ReturnType<Db['prepare']>) {
  return {
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

    /** How many ideas the filter selects (small sets are ranked exactly). */
    countIdeas(filter: IdeaFilter): number {
      const { sql, params } = filterSql(filter, 'i');
      return (
        cached(`SELECT COUNT(*) AS n FROM ideas i WHERE 1 = 1${sql}`).get(...params) as {
          n: number;
        }
      ).n;
    },
  };
}
