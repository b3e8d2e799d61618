/**
 * Ideas said again: every run of a recurring check says the same sentence, and the graph stores
 * it once per run. These reads group ideas by their text (case and surrounding spaces aside, in
 * SQL so that one rule decides what "the same" is) and weigh entities by how many different
 * things were said about them, so a sentence repeated by seven runs counts once.
 */
import { allAwaited } from '../engine.js';
import type { Db } from '../open.js';
import { chunkedAwaited, placeholders } from './graph-row-sql.js';
import type { EntityRow } from './graph-rows.js';

/** How often an idea's text was said, in how many conversations, first and last. */
export interface IdeaRepeat {
  /** The text as compared: ideas with the same key are the same idea said again. */
  key: string;
  count: number;
  sessions: number;
  firstAt: number;
  lastAt: number;
}

/** The text ideas are compared by; `t` is the ideas table's alias with its dot, if any. */
const key = (t = '') => `lower(trim(${t}content))`;

export function createRepeatRows(db: Db) {
  return {
    /** Each idea's text key and how often that text was said in the whole graph. */
    async repeatsOf(ids: readonly number[]): Promise<Map<number, IdeaRepeat>> {
      const rows = await chunkedAwaited(
        [...new Set(ids)],
        async (chunk) =>
          (await allAwaited(
            db.prepare(
              `SELECT i.id AS id, g.k AS k, g.n AS n, g.s AS s, g.f AS f, g.l AS l
               FROM ideas i JOIN (
                 SELECT ${key()} AS k, COUNT(*) AS n, COUNT(DISTINCT session) AS s,
                   MIN(created_at) AS f, MAX(created_at) AS l
                 FROM ideas WHERE ${key()} IN (
                   SELECT ${key()} FROM ideas WHERE id IN (${placeholders(chunk.length)}))
                 GROUP BY ${key()}
               ) g ON g.k = ${key('i.')}
               WHERE i.id IN (${placeholders(chunk.length)})`,
            ),
            ...chunk,
            ...chunk,
          )) as {
            id: number;
            k: string;
            n: number;
            s: number;
            f: number;
            l: number;
          }[],
      );
      return new Map(
        rows.map((r) => [
          Number(r.id),
          {
            key: r.k,
            count: Number(r.n),
            sessions: Number(r.s),
            firstAt: Number(r.f),
            lastAt: Number(r.l),
          },
        ]),
      );
    },

    /** How many different texts name each of these entities (a repeated sentence counts once). */
    async entityEvidence(entityIds: readonly number[]): Promise<Map<number, number>> {
      const rows = await chunkedAwaited(
        entityIds,
        async (chunk) =>
          (await allAwaited(
            db.prepare(
              `SELECT l.entity_id AS id, COUNT(DISTINCT ${key('i.')}) AS n
               FROM idea_entities l JOIN ideas i ON i.id = l.idea_id
               WHERE l.entity_id IN (${placeholders(chunk.length)}) GROUP BY l.entity_id`,
            ),
            ...chunk,
          )) as { id: number; n: number }[],
      );
      return new Map(rows.map((r) => [Number(r.id), Number(r.n)]));
    },

    /**
     * Entities most talked about (by different texts naming them), leaving out, unless of a
     * `strongTypes` type, the names in `notNames` (lower case) and those with less evidence than
     * `minEvidence` (the rule of graph/not-entities.ts and entity-evidence.ts). `ideas` is that
     * evidence.
     */
    async entitiesByEvidence(o: {
      limit: number;
      notNames: readonly string[];
      strongTypes: readonly string[];
      minEvidence: number;
    }): Promise<(EntityRow & { ideas: number })[]> {
      const rows = (await allAwaited(
        db.prepare(
          `SELECT e.id AS id, e.name AS name, e.type AS type,
             COUNT(DISTINCT ${key('i.')}) AS ideas
           FROM entities e JOIN idea_entities l ON l.entity_id = e.id
           JOIN ideas i ON i.id = l.idea_id
           WHERE e.type IN (${placeholders(o.strongTypes.length)})
             OR lower(trim(e.name)) NOT IN (${placeholders(o.notNames.length)})
           GROUP BY e.id, e.name, e.type
           HAVING e.type IN (${placeholders(o.strongTypes.length)})
             OR COUNT(DISTINCT ${key('i.')}) >= ?
           ORDER BY ideas DESC, e.name LIMIT ?`,
        ),
        ...o.strongTypes,
        ...o.notNames,
        ...o.strongTypes,
        o.minEvidence,
        o.limit,
      )) as (EntityRow & { ideas: number })[];
      return rows.map((r) => ({ ...r, id: Number(r.id), ideas: Number(r.ideas) }));
    },
  };
}
