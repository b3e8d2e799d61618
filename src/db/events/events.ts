/** The events table: what the agent reported (`agent`) and what watchkeeper itself noticed (`system`). */
import type { EventLevel } from '../../stream/markers.js';
import { type TextMatch, textMatch } from './event-search.js';
import { allAwaited, getAwaited, runAwaited } from '../engine.js';
import { type Db, type Statement, statementCache } from '../open.js';

export type EventSource = 'agent' | 'system';

export interface EventRow {
  id: number;
  sessionId: number | null;
  source: EventSource;
  level: EventLevel;
  service: string | null;
  message: string;
  createdAt: number;
  /** The sidecar that wrote it (WATCHKEEPER_INSTANCE); `local` for a lone sidecar. */
  instance: string;
}

/** An event to write: the store stamps its own instance. */
export type NewEvent = Omit<EventRow, 'id' | 'instance'>;

export interface EventFilter {
  level?: EventLevel;
  service?: string;
  sessionId?: number;
  source?: EventSource;
  /** An FTS5 query over message and service (see eventTextQuery). */
  text?: string;
  /** created_at from (inclusive) and to (exclusive), epoch ms. */
  from?: number;
  to?: number;
  /** False hides events their group's acknowledgement covers; absent or true shows them. */
  includeAcked?: boolean;
  /** Only the events this instance wrote. */
  instance?: string;
  limit?: number;
  offset?: number;
}

const COLUMNS = `id, session_id AS sessionId, source, level, service, message,
  created_at AS createdAt, instance`;

/**
 * The filter as a WHERE clause over `events` (columns qualified, so that it also works joined
 * with event_groups). The acknowledgement is left to the callers: a count subtracts the
 * acknowledged events, a page of rows tests each row.
 */
function eventWhere(
  filter: EventFilter,
  text: TextMatch,
): { clauses: string[]; params: (string | number)[] } {
  const clauses: string[] = [];
  const params: (string | number)[] = [];
  const add = (clause: string, value: string | number) => {
    clauses.push(clause);
    params.push(value);
  };
  if (filter.level) add('events.level = ?', filter.level);
  if (filter.service) add('events.service = ?', filter.service);
  if (filter.sessionId !== undefined) add('events.session_id = ?', filter.sessionId);
  if (filter.source) add('events.source = ?', filter.source);
  if (filter.from !== undefined) add('events.created_at >= ?', filter.from);
  if (filter.to !== undefined) add('events.created_at < ?', filter.to);
  if (filter.instance !== undefined) add('events.instance = ?', filter.instance);
  if (filter.text) add(...text('events.id', filter.text));
  return { clauses, params };
}

const whereSql = (clauses: readonly string[]) =>
  clauses.length ? `WHERE ${clauses.join(' AND ')}` : '';

/** An event its group's acknowledgement covers. */
const ACKED = `EXISTS (SELECT 1 FROM event_groups g
  WHERE g.id = events.group_id AND g.acked_at >= events.created_at)`;

/** `instance`: this sidecar's name, written on every event it inserts. */
export function createEventStore(db: Db, instance = 'local') {
  const cached = statementCache(db);
  const text = textMatch(db, 'events_fts');
  const insert = db.prepare(`INSERT INTO events
    (session_id, source, level, service, message, created_at, instance)
    VALUES (@sessionId, @source, @level, @service, @message, @createdAt, @instance)`);
  const instances = db.prepare(`WITH RECURSIVE i(name) AS (
      SELECT MIN(instance) FROM events
      UNION ALL
      SELECT (SELECT MIN(instance) FROM events WHERE instance > i.name) FROM i
      WHERE i.name IS NOT NULL
    ) SELECT name FROM i WHERE name IS NOT NULL LIMIT ?`);

  const recentServices = db.prepare(`SELECT service FROM events
    WHERE created_at >= ? AND service IS NOT NULL AND level IN (SELECT value FROM json_each(?))
    GROUP BY service ORDER BY MAX(created_at) DESC LIMIT ?`);

  // The newest event of each of these services (one JSON parameter: any number at once), one
  // look into the service's index per name.
  const latestOfServices = db.prepare(`SELECT ${COLUMNS} FROM events WHERE id IN (SELECT
    (SELECT x.id FROM events x WHERE x.service = j.value ORDER BY x.created_at DESC, x.id DESC
      LIMIT 1) FROM json_each(?) j)`);

  const row = (event: NewEvent) => ({
    sessionId: event.sessionId,
    source: event.source,
    level: event.level,
    service: event.service,
    message: event.message,
    createdAt: event.createdAt,
    instance,
  });

  return {
    /** The newest event of each of these services that has one, read awaited. */
    async latestOf(services: readonly string[]): Promise<EventRow[]> {
      if (services.length === 0) return [];
      return (await allAwaited(latestOfServices, JSON.stringify(services))) as EventRow[];
    },

    /** Services named by events at these levels since `since`, most recent first. */
    async recentServices(
      since: number,
      levels: readonly EventLevel[],
      limit: number,
    ): Promise<string[]> {
      const rows = await allAwaited(recentServices, since, JSON.stringify(levels), limit);
      return (rows as { service: string }[]).map((r) => r.service);
    },

    insert(event: NewEvent): number {
      return Number(insert.run(row(event)).lastInsertRowid);
    },
    /** `insert`, awaited: the event loop goes on while PostgreSQL answers (engine.ts). */
    async insertAwaited(event: NewEvent): Promise<number> {
      return Number((await runAwaited(insert, row(event))).lastInsertRowid);
    },
    /** The instances that wrote events, by name (at most `limit`). */
    instances(limit = 100): string[] {
      return (instances.all(limit) as { name: string }[]).map((r) => r.name);
    },
    /** The same, awaited (the Events page's filter). */
    async instancesAwaited(limit = 100): Promise<string[]> {
      return ((await allAwaited(instances, limit)) as { name: string }[]).map((r) => r.name);
    },
    list(filter: EventFilter = {}): EventRow[] {
      const q = listQuery(filter);
      return q.stmt.all(...q.params) as EventRow[];
    },
    /** `list`, awaited: the event loop goes on while PostgreSQL answers (engine.ts). */
    async listAwaited(filter: EventFilter = {}): Promise<EventRow[]> {
      const q = listQuery(filter);
      return (await allAwaited(q.stmt, ...q.params)) as EventRow[];
    },
    /**
     * How many events the filter matches (limit and offset aside). Without acknowledged ones:
     * all of them less those of the acknowledged groups, read through the groups' index, so
     * that the count stays an index count however many events there are.
     */
    count(filter: EventFilter = {}): number {
      const q = countQueries(filter);
      const n = (stmt: Statement) => (stmt.get(...q.params) as { n: number }).n;
      const all = n(q.all);
      return q.acked === null || all === 0 ? all : all - n(q.acked);
    },
    /** `count`, awaited. */
    async countAwaited(filter: EventFilter = {}): Promise<number> {
      const q = countQueries(filter);
      const n = async (stmt: Statement) =>
        ((await getAwaited(stmt, ...q.params)) as { n: number }).n;
      const all = await n(q.all);
      return q.acked === null || all === 0 ? all : all - (await n(q.acked));
    },
  };

  function listQuery(filter: EventFilter) {
    const { clauses, params } = eventWhere(filter, text);
    if (filter.includeAcked === false) clauses.push(`NOT ${ACKED}`);
    const sql = `SELECT ${COLUMNS} FROM events ${whereSql(clauses)}
      ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`;
    return { stmt: cached(sql), params: [...params, filter.limit ?? 100, filter.offset ?? 0] };
  }

  /** The count of every match, and of the acknowledged ones when those are left out. */
  function countQueries(filter: EventFilter) {
    const { clauses, params } = eventWhere(filter, text);
    const all = cached(`SELECT COUNT(*) AS n FROM events ${whereSql(clauses)}`);
    const acked =
      filter.includeAcked === false
        ? cached(`SELECT COUNT(*) AS n FROM event_groups g
          JOIN events ON events.group_id = g.id AND events.created_at <= g.acked_at
          ${whereSql(['g.acked_at IS NOT NULL', ...clauses])}`)
        : null;
    return { all, acked, params };
  }
}

export type EventStore = ReturnType<typeof createEventStore>;
