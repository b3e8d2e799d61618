/**
 * Retention: sessions, events and memory history older than a cutoff are deleted. Memories
 * themselves never are, and an active memory keeps its whole history (its sparkline and changes):
 * only the history of memories no longer active (or deleted) is pruned. Deleting a session sets
 * session_id to NULL in the rows that named it (events, memories, cooldowns) and removes the
 * record of the memories it was given. Work is done in small transactions so that a first prune of
 * years of data does not hold the write lock for long.
 */
import type { Db } from './open.js';

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
}

const BATCH = 500;

export function createRetentionStore(db: Db) {
  // A running session is never pruned, however old: it is still being written.
  const oldSessions = db.prepare(`SELECT id, log_path AS logPath FROM sessions
    WHERE status <> 'running' AND COALESCE(ended_at, started_at) < ? ORDER BY id`);
  const deleteSession = db.prepare('DELETE FROM sessions WHERE id = ?');
  const countEvents = db.prepare('SELECT COUNT(*) AS n FROM events WHERE created_at < ?');
  const deleteEvents = db.prepare(
    `DELETE FROM events WHERE id IN (SELECT id FROM events WHERE created_at < ? LIMIT ${BATCH * 10})`,
  );
  const HISTORY_WHERE = `created_at < ? AND memory_id NOT IN (SELECT id FROM memories WHERE active = 1)`;
  const countHistory = db.prepare(
    `SELECT COUNT(*) AS n FROM memory_history WHERE ${HISTORY_WHERE}`,
  );
  const deleteHistory = db.prepare(
    `DELETE FROM memory_history WHERE id IN
      (SELECT id FROM memory_history WHERE ${HISTORY_WHERE} LIMIT ${BATCH * 10})`,
  );
  const sessionIds = db.prepare('SELECT id FROM sessions');

  return {
    /** What is older than `cutoff` (epoch ms): nothing is deleted. */
    plan(cutoff: number): PrunePlan {
      return {
        cutoff,
        sessions: oldSessions.all(cutoff) as PrunedSession[],
        events: (countEvents.get(cutoff) as { n: number }).n,
        memoryHistory: (countHistory.get(cutoff) as { n: number }).n,
      };
    },

    /**
     * One step of deleting what is older than `cutoff`: a batch of the given sessions, else a
     * batch of events, else of memory history. Returns false when nothing was left to delete; the
     * caller yields between steps so that serving goes on.
     */
    step(cutoff: number, sessions: PrunedSession[]): boolean {
      if (sessions.length > 0) {
        const batch = sessions.splice(0, BATCH);
        db.transaction(() => {
          for (const s of batch) deleteSession.run(s.id);
        })();
        return true;
      }
      if (deleteEvents.run(cutoff).changes > 0) return true;
      return deleteHistory.run(cutoff).changes > 0;
    },

    /** Every session id there is (to tell a log file whose session is gone). */
    sessionIds(): Set<number> {
      return new Set((sessionIds.all() as { id: number }[]).map((r) => r.id));
    },
  };
}

export type RetentionStore = ReturnType<typeof createRetentionStore>;
