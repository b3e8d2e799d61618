/**
 * session_alert_repeats: how many more times the alert that started a session arrived within
 * the de-duplication window (the scheduler queued one run for them all).
 */
import { allAwaited, getAwaited } from '../engine.js';
import type { Db } from '../open.js';

export function createAlertRepeatStore(db: Db) {
  const set = db.prepare(`INSERT INTO session_alert_repeats (session_id, repeats, last_at)
    VALUES (?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET repeats = excluded.repeats,
    last_at = excluded.last_at`);
  const one = db.prepare('SELECT repeats FROM session_alert_repeats WHERE session_id = ?');

  return {
    set(sessionId: number, repeats: number, at: number): void {
      set.run(sessionId, repeats, at);
    },
    get(sessionId: number): number {
      return (one.get(sessionId) as { repeats: number } | undefined)?.repeats ?? 0;
    },
    async getAwaited(sessionId: number): Promise<number> {
      return ((await getAwaited(one, sessionId)) as { repeats: number } | undefined)?.repeats ?? 0;
    },
    /** Repeats per session for `ids` (awaited: the Sessions list); sessions without any are absent. */
    async forSessionsAwaited(ids: readonly number[]): Promise<Map<number, number>> {
      const out = new Map<number, number>();
      if (ids.length === 0) return out;
      const stmt = db.prepare(
        `SELECT session_id AS id, repeats FROM session_alert_repeats
          WHERE session_id IN (${ids.map(() => '?').join(', ')})`,
      );
      const rows = (await allAwaited(stmt, ...ids)) as { id: number; repeats: number }[];
      for (const r of rows) out.set(r.id, r.repeats);
      return out;
    },
  };
}

export type AlertRepeatStore = ReturnType<typeof createAlertRepeatStore>;
