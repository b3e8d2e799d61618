/**
 * Retention: sessions, events and memory history older than a cutoff are deleted. Memories
 * themselves never are, and an active memory keeps its whole history (its sparkline and changes):
 * only the history of memories no longer active (or deleted) is pruned. Deleting a session sets
 * session_id to NULL in the rows that named it (events, memories, cooldowns) and removes the
 * record of the memories it was given. Notifications whose every delivery is done (sent,
 * suppressed or failed for good) go once they were last seen before the cutoff, with their
 * deliveries; one still pending or retrying stays. The other per-session tables (service checks,
 * alert repeats) go with their session, and event groups follow their events by trigger. Work
 * is done in small transactions so that a first prune of years of data does not hold the write
 * lock for long.
 *
 * In a fleet sharing one database, an instance prunes its own sessions and events (their raw
 * logs are on its disk, and its retention setting is its own); the shared rows (memory history,
 * notifications) are pruned by whichever instance runs, each delete harmless when repeated.
 * On PostgreSQL, so are the full-text changes every reader has read (search_changes).
 */
import { allAwaited, engineOf, getAwaited, runAwaited, writeAwaited } from './engine.js';
import type { Db } from './open.js';
import type { PostgresDb } from './postgres/database.js';
import { pruneSearchChanges } from './postgres/search-changes.js';

export interface PrunedSession {
  id: number;
  /** Its raw log, relative to the data folder (null when it has none). */
  logPath: string | null;
}

export interface PrunePlan {
  cutoff: number;
  /** The sessions older than the cutoff, for their log files. */
  sessions: PrunedSession[];
  events: number;
  memoryHistory: number;
  /** Notifications delivered or given up on (their delivery rows go with them). */
  notifications: number;
}

const BATCH = 500;

export function createRetentionStore(db: Db, instance = 'local') {
  // A running session is never pruned, however old: it is still being written.
  const oldSessions = db.prepare(`SELECT id, log_path AS logPath FROM sessions
    WHERE status <> 'running' AND COALESCE(ended_at, started_at) < ? AND instance = ?
    ORDER BY id`);
  const deleteSession = db.prepare('DELETE FROM sessions WHERE id = ? AND instance = ?');
  const countEvents = db.prepare(
    'SELECT COUNT(*) AS n FROM events WHERE created_at < ? AND instance = ?',
  );
  const deleteEvents = db.prepare(`DELETE FROM events WHERE id IN
    (SELECT id FROM events WHERE created_at < ? AND instance = ? LIMIT ${BATCH * 10})`);
  const HISTORY_WHERE = `created_at < ? AND memory_id NOT IN (SELECT id FROM memories WHERE active = 1)`;
  const countHistory = db.prepare(
    `SELECT COUNT(*) AS n FROM memory_history WHERE ${HISTORY_WHERE}`,
  );
  const deleteHistory = db.prepare(
    `DELETE FROM memory_history WHERE id IN
      (SELECT id FROM memory_history WHERE ${HISTORY_WHERE} LIMIT ${BATCH * 10})`,
  );
  // created_at first: its index narrows the rows; a repeat seen since keeps the notification.
  const NOTIFICATION_WHERE = `created_at < ? AND last_seen_at < ? AND fanned_out = 1
    AND NOT EXISTS (SELECT 1 FROM notification_deliveries d WHERE d.notification_id = notifications.id
      AND d.status IN ('pending', 'retrying'))`;
  const countNotifications = db.prepare(
    `SELECT COUNT(*) AS n FROM notifications WHERE ${NOTIFICATION_WHERE}`,
  );
  const deleteNotifications = db.prepare(
    `DELETE FROM notifications WHERE id IN
      (SELECT id FROM notifications WHERE ${NOTIFICATION_WHERE} LIMIT ${BATCH})`,
  );
  const sessionIds = db.prepare('SELECT id FROM sessions');
  const logPaths = db.prepare('SELECT log_path AS p FROM sessions WHERE log_path IS NOT NULL');

  return {
    /** What is older than `cutoff` (epoch ms): nothing is deleted. Read side by side. */
    async plan(cutoff: number): Promise<PrunePlan> {
      const [sessions, events, memoryHistory, notifications] = await Promise.all([
        allAwaited(oldSessions, cutoff, instance),
        getAwaited(countEvents, cutoff, instance),
        getAwaited(countHistory, cutoff),
        getAwaited(countNotifications, cutoff, cutoff),
      ]);
      const n = (row: unknown) => (row as { n: number }).n;
      return {
        cutoff,
        sessions: sessions as PrunedSession[],
        events: n(events),
        memoryHistory: n(memoryHistory),
        notifications: n(notifications),
      };
    },

    /**
     * One step of deleting what is older than `cutoff`: a batch of the given sessions, else a
     * batch of events, else of memory history, else of notifications. Returns false when nothing
     * was left to delete. Awaited, a statement (or a batch's transaction) at a time: serve prunes
     * daily on its event loop.
     */
    async step(cutoff: number, sessions: PrunedSession[]): Promise<boolean> {
      if (sessions.length > 0) {
        const batch = sessions.splice(0, BATCH);
        await writeAwaited(
          db,
          batch.map((s) => ({ stmt: deleteSession, params: [s.id, instance] })),
        );
        return true;
      }
      if ((await runAwaited(deleteEvents, cutoff, instance)).changes > 0) return true;
      if ((await runAwaited(deleteHistory, cutoff)).changes > 0) return true;
      return (await runAwaited(deleteNotifications, cutoff, cutoff)).changes > 0;
    },

    /**
     * PostgreSQL: deletes the full-text changes every instance's search has read (see
     * pruneSearchChanges); how many. Nothing to do on SQLite, whose index is the file's own.
     */
    async searchChanges(now: number): Promise<number> {
      return engineOf(db) === 'postgres' ? pruneSearchChanges(db as PostgresDb, now) : 0;
    },

    /** Every session id there is, of any instance (to tell a log file whose session is gone). */
    async sessionIds(): Promise<Set<number>> {
      return new Set(((await allAwaited(sessionIds)) as { id: number }[]).map((r) => r.id));
    },

    /**
     * Every log path a session records, relative to its data folder: a log copied in under
     * another id (`migrate-store` numbers sessions anew) is still its session's.
     */
    async logPaths(): Promise<Set<string>> {
      return new Set(((await allAwaited(logPaths)) as { p: string }[]).map((r) => r.p));
    },
  };
}

export type RetentionStore = ReturnType<typeof createRetentionStore>;
