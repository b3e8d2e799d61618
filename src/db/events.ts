/** The events table: what the agent reported (`agent`) and what watchkeeper itself noticed (`system`). */
import type { EventLevel } from '../stream/markers.js';
import { type Db, statementCache } from './open.js';

export type EventSource = 'agent' | 'system';

export interface EventRow {
  id: number;
  sessionId: number | null;
  source: EventSource;
  level: EventLevel;
  service: string | null;
  message: string;
  createdAt: number;
}

export type NewEvent = Omit<EventRow, 'id'>;

export interface EventFilter {
  level?: EventLevel;
  service?: string;
  sessionId?: number;
  source?: EventSource;
  limit?: number;
  offset?: number;
}

const COLUMNS =
  'id, session_id AS sessionId, source, level, service, message, created_at AS createdAt';

export function createEventStore(db: Db) {
  const cached = statementCache(db);
  const insert =
    db.prepare(`INSERT INTO events (session_id, source, level, service, message, created_at)
    VALUES (@sessionId, @source, @level, @service, @message, @createdAt)`);

  const recentServices = db.prepare(`SELECT service FROM events
    WHERE created_at >= ? AND service IS NOT NULL AND level IN (SELECT value FROM json_each(?))
    GROUP BY service ORDER BY MAX(created_at) DESC LIMIT ?`);

  return {
    /** Services named by events at these levels since `since`, most recent first. */
    recentServices(since: number, levels: readonly EventLevel[], limit: number): string[] {
      return (
        recentServices.all(since, JSON.stringify(levels), limit) as { service: string }[]
      ).map((r) => r.service);
    },

    insert(event: NewEvent): number {
      return Number(insert.run(event).lastInsertRowid);
    },
    list(filter: EventFilter = {}): EventRow[] {
      const where: string[] = [];
      const params: (string | number)[] = [];
      const add = (clause: string, value: string | number) => {
        where.push(clause);
        params.push(value);
      };
      if (filter.level) add('level = ?', filter.level);
      if (filter.service) add('service = ?', filter.service);
      if (filter.sessionId !== undefined) add('session_id = ?', filter.sessionId);
      if (filter.source) add('source = ?', filter.source);
      const sql = `SELECT ${COLUMNS} FROM events ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`;
      return cached(sql).all(...params, filter.limit ?? 100, filter.offset ?? 0) as EventRow[];
    },
  };
}

export type EventStore = ReturnType<typeof createEventStore>;
