/**
 * The memory graph's counts for the Graph page and graph stats: rows by kind, intent and relation.
 */
import type { Db } from '../open.js';
import {
  type GraphCounts,
  type Intent,
  INTENTS,
  RELATION_TYPES,
  type RelationType,
} from './graph-rows.js';

export function createGraphCounts(db: Db, cached: (sql: string) => ReturnType<Db['prepare']>) {
  return {
    counts(): GraphCounts {
      const one = (sql: string) => (cached(sql).get() as { n: number | null }).n;
      const byIntent = Object.fromEntries(INTENTS.map((i) => [i, 0])) as Record<Intent, number>;
      for (const r of cached('SELECT intent, COUNT(*) AS n FROM ideas GROUP BY intent').all() as {
        intent: Intent;
        n: number;
      }[])
        byIntent[r.intent] = r.n;
      const byRelation = Object.fromEntries(RELATION_TYPES.map((t) => [t, 0])) as Record<
        RelationType,
        number
      >;
      for (const r of cached(
        'SELECT relation_type AS type, COUNT(*) AS n FROM relations GROUP BY relation_type',
      ).all() as { type: RelationType; n: number }[])
        byRelation[r.type] = r.n;
      return {
        sessions: one('SELECT COUNT(*) AS n FROM graph_sessions') ?? 0,
        files: one('SELECT COUNT(*) AS n FROM index_state') ?? 0,
        spans: one('SELECT COUNT(*) AS n FROM spans') ?? 0,
        topics: one('SELECT COUNT(*) AS n FROM spans WHERE depth = 0') ?? 0,
        ideas: one('SELECT COUNT(*) AS n FROM ideas') ?? 0,
        entities: one('SELECT COUNT(*) AS n FROM entities') ?? 0,
        relations: one('SELECT COUNT(*) AS n FROM relations') ?? 0,
        byIntent,
        byRelation,
        openQuestions:
          one("SELECT COUNT(*) AS n FROM ideas WHERE intent = 'question' AND answered = 0") ?? 0,
        lastIndexed: one('SELECT max(last_indexed) AS n FROM index_state'),
      };
    },
  };
}
