/**
 * Groups of identical events (same service, level and message), kept by the triggers of
 * migration 0014: a count, first and last seen, and an acknowledgement (who, when) that covers
 * the group's events up to its time; a later occurrence reopens the group.
 */
import type { EventLevel } from '../../stream/markers.js';
import { type TextMatch, textMatch } from './event-search.js';
import { allAwaited, getAwaited, runAwaited, WriteConflict, writeAwaited } from '../engine.js';
import { type Db, statementCache } from '../open.js';

export interface EventGroupRow {
  id: number;
  service: string | null;
  level: EventLevel;
  message: string;
  count: number;
  firstSeen: number;
  lastSeen: number;
  ackedAt: number | null;
  ackedBy: string | null;
  /** True while the acknowledgement covers the newest occurrence. */
  acked: boolean;
}

export interface EventGroupFilter {
  level?: EventLevel;
  service?: string;
  /** An FTS5 query over the group's message and service. */
  text?: string;
  /** Groups seen at or after `from` and before `to` (last seen), epoch ms. */
  from?: number;
  to?: number;
  /** Absent or false: only groups not acknowledged (or reopened since). */
  includeAcked?: boolean;
  /**
   * One instance's share of each group (a fleet shares one database): only groups it raised
   * events in, counted, first and last seen over its events alone, and acknowledged when the
   * group's acknowledgement covers its newest one. Absent: every instance's events.
   */
  instance?: string;
  limit?: number;
  offset?: number;
}

const COLUMNS = `id, NULLIF(service, '') AS service, level, message, count,
  first_seen AS firstSeen, last_seen AS lastSeen, acked_at AS ackedAt, acked_by AS ackedBy,
  (acked_at IS NOT NULL AND acked_at >= last_seen) AS acked`;

/**
 * The groups a filter reads: the table, or with `instance` each group's figures over that
 * instance's events (their `instance, id` and `group_id, created_at` indexes keep it small).
 * The instance is the first parameter of the statement.
 */
function groupSource(f: EventGroupFilter): { from: string; params: string[] } {
  if (!f.instance) return { from: 'event_groups', params: [] };
  return {
    from: `(SELECT g.id, g.service, g.level, g.message, s.count, s.first_seen, s.last_seen,
        g.acked_at, g.acked_by
      FROM event_groups g
      JOIN (SELECT group_id, COUNT(*) AS count, MIN(created_at) AS first_seen,
              MAX(created_at) AS last_seen
            FROM events WHERE instance = ? AND group_id IS NOT NULL GROUP BY group_id) s
        ON s.group_id = g.id) AS event_groups`,
    params: [f.instance],
  };
}

type RawGroup = Omit<EventGroupRow, 'acked'> & { acked: number };
const fromRaw = (r: RawGroup): EventGroupRow => ({ ...r, acked: r.acked === 1 });

function groupWhere(f: EventGroupFilter, text: TextMatch) {
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (f.level) {
    where.push('level = ?');
    params.push(f.level);
  }
  if (f.service) {
    where.push('service = ?');
    params.push(f.service);
  }
  if (f.from !== undefined) {
    where.push('last_seen >= ?');
    params.push(f.from);
  }
  if (f.to !== undefined) {
    where.push('first_seen < ?');
    params.push(f.to);
  }
  if (f.text) {
    const [clause, param] = text('id', f.text);
    where.push(clause);
    params.push(param);
  }
  if (!f.includeAcked) where.push('(acked_at IS NULL OR acked_at < last_seen)');
  return { where: where.length ? `WHERE ${where.join(' AND ')}` : '', params };
}

export function createEventGroupStore(db: Db) {
  const cached = statementCache(db);
  const text = textMatch(db, 'event_groups_fts');
  const getOne = db.prepare(`SELECT ${COLUMNS} FROM event_groups WHERE id = ?`);
  // Up to `at`, and the group's newest event at least (an ack sent with a clock a little behind
  // still covers what the operator saw); the groups of a JSON list of ids.
  const ack = db.prepare(`UPDATE event_groups
    SET acked_at = CASE WHEN last_seen > ? THEN last_seen ELSE ? END, acked_by = ?
    WHERE id IN (SELECT CAST(value AS BIGINT) FROM json_each(?))`);
  const existing = db.prepare(
    'SELECT id FROM event_groups WHERE id IN (SELECT CAST(value AS BIGINT) FROM json_each(?))',
  );
  const unack = db.prepare('UPDATE event_groups SET acked_at = NULL, acked_by = NULL WHERE id = ?');
  const listQuery = (filter: EventGroupFilter) => {
    const source = groupSource(filter);
    const { where, params } = groupWhere(filter, text);
    const sql = `SELECT ${COLUMNS} FROM ${source.from} ${where}
      ORDER BY last_seen DESC, id DESC LIMIT ? OFFSET ?`;
    const all = [...source.params, ...params, filter.limit ?? 100, filter.offset ?? 0];
    return { stmt: cached(sql), params: all };
  };
  const countQuery = (filter: EventGroupFilter) => {
    const source = groupSource(filter);
    const { where, params } = groupWhere(filter, text);
    const sql = `SELECT COUNT(*) AS n FROM ${source.from} ${where}`;
    return { stmt: cached(sql), params: [...source.params, ...params] };
  };

  return {
    get(id: number): EventGroupRow | null {
      const raw = getOne.get(id) as RawGroup | undefined;
      return raw ? fromRaw(raw) : null;
    },
    /** Most recently seen first. */
    list(filter: EventGroupFilter = {}): EventGroupRow[] {
      const q = listQuery(filter);
      return (q.stmt.all(...q.params) as RawGroup[]).map(fromRaw);
    },
    /** `list`, awaited: the event loop goes on while PostgreSQL answers (engine.ts). */
    async listAwaited(filter: EventGroupFilter = {}): Promise<EventGroupRow[]> {
      const q = listQuery(filter);
      return ((await allAwaited(q.stmt, ...q.params)) as RawGroup[]).map(fromRaw);
    },
    count(filter: EventGroupFilter = {}): number {
      const q = countQuery(filter);
      return (q.stmt.get(...q.params) as { n: number }).n;
    },
    /** `count`, awaited. */
    async countAwaited(filter: EventGroupFilter = {}): Promise<number> {
      const q = countQuery(filter);
      return ((await getAwaited(q.stmt, ...q.params)) as { n: number }).n;
    },
    /** `get`, awaited (the API's acknowledgements). */
    async getAwaited(id: number): Promise<EventGroupRow | null> {
      const raw = (await getAwaited(getOne, id)) as RawGroup | undefined;
      return raw ? fromRaw(raw) : null;
    },
    /**
     * Acknowledges the group's events up to `at` (its newest one at least, so that an ack sent
     * with a clock a little behind still covers what the operator saw). False: no such group.
     * Awaited: the dashboard and the API ask it.
     */
    async acknowledge(id: number, actor: string, at: number): Promise<boolean> {
      return (await runAwaited(ack, at, at, actor, JSON.stringify([id]))).changes === 1;
    },
    /**
     * Acknowledges every group of `ids` as `acknowledge` does, or none of them: the ids that do
     * not exist (empty when all were acknowledged). One statement, guarded on acknowledging
     * them all.
     */
    async acknowledgeAll(ids: number[], actor: string, at: number): Promise<number[]> {
      const unique = [...new Set(ids)];
      try {
        const json = JSON.stringify(unique);
        await writeAwaited(db, [
          { stmt: ack, params: [at, at, actor, json], expect: unique.length },
        ]);
        return [];
      } catch (err) {
        if (!(err instanceof WriteConflict)) throw err;
        const found = new Set(
          ((await allAwaited(existing, JSON.stringify(unique))) as { id: number }[]).map((r) =>
            Number(r.id),
          ),
        );
        return unique.filter((id) => !found.has(id));
      }
    },
    /** Withdraws the acknowledgement. False: no such group. */
    async reopen(id: number): Promise<boolean> {
      return (await runAwaited(unack, id)).changes === 1;
    },
  };
}

export type EventGroupStore = ReturnType<typeof createEventGroupStore>;
