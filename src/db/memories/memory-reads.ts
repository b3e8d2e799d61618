/** Reading memories: by id, by service, filtered pages, decay candidates and a memory's history. */
import type { Category } from '../../memory/policy.js';
import {
  COLUMNS,
  COLUMNS_OF_M,
  fromRaw,
  otherInstancesProbe,
  type RawMemory,
  serviceIs,
  whereOf,
  withVisibility,
} from './memory-columns.js';
import { FLEET, type HistoryRow, type MemoryFilter, type MemoryRow } from './memory-types.js';
import { allAwaited, getAwaited } from '../engine.js';
import { type Db, statementCache } from '../open.js';

export function memoryReads(db: Db) {
  const cached = statementCache(db);
  const hasOthers = otherInstancesProbe(db);
  const getOne = db.prepare(`SELECT ${COLUMNS} FROM memories WHERE id = ?`);
  // Any number of ids as one JSON parameter: one prepared statement.
  const getManyStmt = db.prepare(
    `SELECT ${COLUMNS_OF_M} FROM json_each(?) j CROSS JOIN memories m ON m.id = CAST(j.value AS BIGINT)`,
  );
  // A skip scan of the instance index: one probe per instance, not a read of every row.
  const instancesStmt = db.prepare(`WITH RECURSIVE names(name) AS (
      SELECT min(instance) FROM memories
      UNION ALL
      SELECT (SELECT min(instance) FROM memories WHERE instance > name) FROM names
      WHERE name IS NOT NULL)
    SELECT name FROM names WHERE name IS NOT NULL`);
  const servicesStmt = db.prepare(
    'SELECT DISTINCT service FROM memories WHERE service IS NOT NULL ORDER BY service',
  );
  const decayDue = db.prepare(`SELECT ${COLUMNS} FROM memories
    WHERE active = 1 AND pinned = 0 AND next_decay_at <= ?`);
  const HISTORY_COLUMNS = `id, memory_id AS memoryId, action, old_confidence AS oldConfidence,
    new_confidence AS newConfidence, observation, session_id AS sessionId, created_at AS createdAt,
    related_memory_id AS relatedMemoryId, source, evidence`;
  const history = db.prepare(`SELECT ${HISTORY_COLUMNS} FROM memory_history WHERE memory_id = ?
    ORDER BY created_at, id`);
  const historyOfMany = db.prepare(`SELECT ${HISTORY_COLUMNS} FROM memory_history
    WHERE memory_id IN (SELECT CAST(value AS BIGINT) FROM json_each(?))
    ORDER BY memory_id, created_at, id`);

  // `+scope`: without statistics SQLite would read every active memory of the scope through
  // idx_memories_scope (a few ms at 20,000 memories, on every observation) rather than the
  // service's through idx_memories_service_active.
  const activeOfServiceQuery = (
    service: string | null,
    scope: string,
    limit: number,
    maxId: number,
    visibleTo?: string,
  ) => {
    const of = serviceIs(service);
    return visibleTo !== undefined && hasOthers(visibleTo)
      ? {
          stmt: cached(`SELECT ${COLUMNS} FROM memories WHERE active = 1 AND ${of.sql}
            AND +scope = ? AND id <= ? AND +instance IN (?, '${FLEET}')
            ORDER BY confidence DESC, id LIMIT ?`),
          params: [...of.params, scope, maxId, visibleTo, limit],
        }
      : {
          stmt: cached(`SELECT ${COLUMNS} FROM memories WHERE active = 1 AND ${of.sql}
            AND +scope = ? AND id <= ? ORDER BY confidence DESC, id LIMIT ?`),
          params: [...of.params, scope, maxId, limit],
        };
  };

  const listQuery = (filter: MemoryFilter) => {
    const { sql, params } = whereOf(withVisibility(filter, hasOthers));
    return {
      stmt: cached(`SELECT ${COLUMNS} FROM memories ${sql}
        ORDER BY active DESC, confidence DESC, updated_at DESC, id LIMIT ? OFFSET ?`),
      params: [...params, filter.limit ?? 200, filter.offset ?? 0],
    };
  };

  const countQuery = (filter: MemoryFilter) => {
    const { sql, params } = whereOf(withVisibility(filter, hasOthers));
    return { stmt: cached(`SELECT COUNT(*) AS n FROM memories ${sql}`), params };
  };

  return {
    get(id: number): MemoryRow | null {
      const raw = getOne.get(id) as RawMemory | undefined;
      return raw ? fromRaw(raw) : null;
    },

    /** The rows of these ids that exist, in no particular order. */
    getMany(ids: readonly number[]): MemoryRow[] {
      if (ids.length === 0) return [];
      return (getManyStmt.all(JSON.stringify(ids)) as RawMemory[]).map(fromRaw);
    },

    async getAwaited(id: number): Promise<MemoryRow | null> {
      const raw = (await getAwaited(getOne, id)) as RawMemory | undefined;
      return raw ? fromRaw(raw) : null;
    },

    async getManyAwaited(ids: readonly number[]): Promise<MemoryRow[]> {
      if (ids.length === 0) return [];
      return ((await allAwaited(getManyStmt, JSON.stringify(ids))) as RawMemory[]).map(fromRaw);
    },

    /**
     * Active memories of a service (any category): the pool a new observation is compared with.
     * `visibleTo`: only that instance's memories and the fleet's.
     */
    async activeOfServiceAwaited(
      service: string | null,
      scope = 'ops',
      limit = 2000,
      maxId = Number.MAX_SAFE_INTEGER,
      visibleTo?: string,
    ): Promise<MemoryRow[]> {
      const q = activeOfServiceQuery(service, scope, limit, maxId, visibleTo);
      return ((await allAwaited(q.stmt, ...q.params)) as RawMemory[]).map(fromRaw);
    },

    list(filter: MemoryFilter = {}): MemoryRow[] {
      const q = listQuery(filter);
      return (q.stmt.all(...q.params) as RawMemory[]).map(fromRaw);
    },

    /** The same, awaited (the Memories page). */
    async listAwaited(filter: MemoryFilter = {}): Promise<MemoryRow[]> {
      const q = listQuery(filter);
      return ((await allAwaited(q.stmt, ...q.params)) as RawMemory[]).map(fromRaw);
    },

    /** Every instance that has a memory (FLEET among them when one is shared), sorted. */
    async instances(): Promise<string[]> {
      return ((await allAwaited(instancesStmt)) as { name: string }[]).map((r) => r.name);
    },

    /** Every service that has a memory, sorted (general memories are not listed). */
    services(): string[] {
      return (servicesStmt.all() as { service: string }[]).map((r) => r.service);
    },

    /** How many memories the filter selects (awaited: the API's list). */
    async count(filter: MemoryFilter = {}): Promise<number> {
      const q = countQuery(filter);
      return ((await getAwaited(q.stmt, ...q.params)) as { n: number }).n;
    },

    /** Active memories of one (service, category): the pool a new observation may reinforce. */
    reinforcementCandidates(service: string | null, category: Category): MemoryRow[] {
      const of = serviceIs(service);
      const rows = cached(`SELECT ${COLUMNS} FROM memories
        WHERE active = 1 AND ${of.sql} AND category = ? ORDER BY confidence DESC, id`).all(
        ...of.params,
        category,
      ) as RawMemory[];
      return rows.map(fromRaw);
    },

    /** Active, unpinned memories whose next decay step is due at `now`. */
    decayDue(now: number): MemoryRow[] {
      return (decayDue.all(now) as RawMemory[]).map(fromRaw);
    },

    /** The same, awaited (whether any is due, before a session's block). */
    async decayDueAwaited(now: number): Promise<MemoryRow[]> {
      return ((await allAwaited(decayDue, now)) as RawMemory[]).map(fromRaw);
    },

    history(memoryId: number): HistoryRow[] {
      return history.all(memoryId) as HistoryRow[];
    },

    /** The same, awaited (the dashboard and the API). */
    async historyAwaited(memoryId: number): Promise<HistoryRow[]> {
      return (await allAwaited(history, memoryId)) as HistoryRow[];
    },

    /** The history of each of these memories (oldest first), in one statement. */
    async historyOfManyAwaited(memoryIds: readonly number[]): Promise<Map<number, HistoryRow[]>> {
      if (memoryIds.length === 0) return new Map();
      const ids = JSON.stringify([...new Set(memoryIds)]);
      return byMemory((await allAwaited(historyOfMany, ids)) as HistoryRow[]);
    },
  };
}

/** History rows grouped by memory, in the order read. */
function byMemory(rows: readonly HistoryRow[]): Map<number, HistoryRow[]> {
  const out = new Map<number, HistoryRow[]>();
  for (const h of rows) {
    const list = out.get(h.memoryId) ?? [];
    list.push(h);
    out.set(h.memoryId, list);
  }
  return out;
}
