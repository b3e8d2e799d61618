/** The memories the session's prompt block may hold: how many, and the groups it is built from. */
import type { ContextMemory } from '../../memory/context.js';
import { otherInstancesProbe, serviceIs } from './memory-columns.js';
import { FLEET } from './memory-types.js';
import { getAwaited, type Statement } from '../engine.js';
import { type Db, statementCache } from '../open.js';

export function memoryContext(db: Db) {
  const cached = statementCache(db);
  const hasOthers = otherInstancesProbe(db);
  const eligibleCount = db.prepare(
    'SELECT COUNT(*) AS n FROM memories WHERE active = 1 AND confidence >= ?',
  );
  const contextServices = db.prepare(`SELECT service, MAX(confidence) AS top FROM memories
    WHERE active = 1 AND confidence >= ? GROUP BY service ORDER BY top DESC, service`);
  const contextGroup = (threshold: number, service: string | null, limit: number) => {
    const of = serviceIs(service);
    return cached(`SELECT id, service, category, observation, confidence FROM memories
      WHERE active = 1 AND confidence >= ? AND ${of.sql}
      ORDER BY confidence DESC, last_reinforced_at DESC, id LIMIT ?`).all(
      threshold,
      ...of.params,
      limit,
    ) as ContextMemory[];
  };

  return {
    /**
     * How many memories the prompt block could include (active, at or above `threshold`);
     * `visibleTo`: only that instance's memories and the fleet's. Awaited, as every read of a
     * session's block (on PostgreSQL the event loop goes on).
     */
    async countEligible(
      threshold: number,
      scopes?: readonly string[],
      visibleTo?: string,
    ): Promise<number> {
      const count = async (stmt: Statement, ...params: unknown[]) =>
        ((await getAwaited(stmt, ...params)) as { n: number }).n;
      if (visibleTo !== undefined && hasOthers(visibleTo)) {
        // The scope index serves the count; the instance is a row filter.
        const visible = `+instance IN (?, '${FLEET}')`;
        return scopes === undefined
          ? count(
              cached(`SELECT COUNT(*) AS n FROM memories WHERE active = 1 AND confidence >= ?
                AND ${visible}`),
              threshold,
              visibleTo,
            )
          : count(
              cached(`SELECT COUNT(*) AS n FROM memories WHERE active = 1 AND confidence >= ?
                AND scope IN (SELECT value FROM json_each(?)) AND ${visible}`),
              threshold,
              JSON.stringify(scopes),
              visibleTo,
            );
      }
      if (scopes !== undefined) {
        return count(
          cached(`SELECT COUNT(*) AS n FROM memories WHERE active = 1 AND confidence >= ?
            AND scope IN (SELECT value FROM json_each(?))`),
          threshold,
          JSON.stringify(scopes),
        );
      }
      return count(eligibleCount, threshold);
    },

    /**
     * Groups for the prompt block, lazily: services ordered by their best confidence, each with
     * at most `perGroup` memories, fetched only when the consumer gets that far.
     */
    *contextGroups(
      threshold: number,
      perGroup: number,
    ): Generator<{ service: string | null; memories: ContextMemory[] }> {
      const services = contextServices.all(threshold) as { service: string | null }[];
      for (const { service } of services) {
        const memories = contextGroup(threshold, service, perGroup);
        yield { service, memories };
      }
    },
  };
}
