/**
 * The memory graph's counts for the Graph page and graph stats: rows by kind, intent and relation.
 */
import { allAwaited, getAwaited } from '../engine.js';
import type { Db } from '../open.js';
import {
  type GraphCounts,
  type Intent,
  INTENTS,
  RELATION_TYPES,
  type RelationType,
} from './graph-rows.js';

export function createGraphCounts(db: Db, cached: (sql: string) => ReturnType<Db['prepare']>) {
  // The counts by kind in one statement; with the two by intent and by relation, read side by side.
  const scalar = (sql: string) => `(${sql})`;
  const totals = () =>
    cached(
      `SELECT ${[
        `${scalar('SELECT COUNT(*) FROM graph_sessions')} AS sessions`,
        `${scalar('SELECT COUNT(*) FROM index_state')} AS files`,
        `${scalar('SELECT COUNT(*) FROM spans')} AS spans`,
        `${scalar('SELECT COUNT(*) FROM spans WHERE depth = 0')} AS topics`,
        `${scalar('SELECT COUNT(*) FROM ideas')} AS ideas`,
        `${scalar('SELECT COUNT(*) FROM entities')} AS entities`,
        `${scalar('SELECT COUNT(*) FROM relations')} AS relations`,
        `${scalar("SELECT COUNT(*) FROM ideas WHERE intent = 'question' AND answered = 0")} AS openQuestions`,
        `${scalar('SELECT max(last_indexed) FROM index_state')} AS lastIndexed`,
      ].join(', ')}`,
    );
  return {
    /** Awaited: the Graph page, `graph stats` and its API. */
    async counts(): Promise<GraphCounts> {
      const [t, intents, relations] = await Promise.all([
        getAwaited(totals()) as Promise<Omit<GraphCounts, 'byIntent' | 'byRelation'>>,
        allAwaited(cached('SELECT intent, COUNT(*) AS n FROM ideas GROUP BY intent')) as Promise<
          { intent: Intent; n: number }[]
        >,
        allAwaited(
          cached(
            'SELECT relation_type AS type, COUNT(*) AS n FROM relations GROUP BY relation_type',
          ),
        ) as Promise<{ type: RelationType; n: number }[]>,
      ]);
      const byIntent = Object.fromEntries(INTENTS.map((i) => [i, 0])) as Record<Intent, number>;
      for (const r of intents) byIntent[r.intent] = r.n;
      const byRelation = Object.fromEntries(RELATION_TYPES.map((t) => [t, 0])) as Record<
        RelationType,
        number
      >;
      for (const r of relations) byRelation[r.type] = r.n;
      return {
        sessions: t.sessions ?? 0,
        files: t.files ?? 0,
        spans: t.spans ?? 0,
        topics: t.topics ?? 0,
        ideas: t.ideas ?? 0,
        entities: t.entities ?? 0,
        relations: t.relations ?? 0,
        byIntent,
        byRelation,
        openQuestions: t.openQuestions ?? 0,
        lastIndexed: t.lastIndexed ?? null,
      };
    },
  };
}
