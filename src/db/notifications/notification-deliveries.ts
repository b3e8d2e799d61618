/**
 * Sending deliveries: which are due for an instance, claimed by the first instance to ask (the
 * claim moves the next attempt past the send's time limit, so a claimant that dies leaves it due
 * again for another), released, and each attempt's outcome recorded.
 */
import { allAwaited, type Db } from '../engine.js';
import { D_COLUMNS, type DeliveryRow, type DeliveryScope } from './notification-types.js';

export function notificationDeliveries(db: Db) {
  const due = db.prepare(`SELECT ${D_COLUMNS} FROM notification_deliveries
    WHERE status IN ('pending', 'retrying') AND next_attempt_at <= ?
    ORDER BY next_attempt_at, id LIMIT ?`);
  const dueIn = db.prepare(`SELECT ${D_COLUMNS} FROM notification_deliveries
    WHERE status IN ('pending', 'retrying') AND next_attempt_at <= ?
      AND (target_key IN (SELECT value FROM json_each(?))
        OR notification_id IN (SELECT id FROM notifications WHERE instance = ?))
    ORDER BY next_attempt_at, id LIMIT ?`);
  const claim = db.prepare(`UPDATE notification_deliveries SET next_attempt_at = ?, updated_at = ?
    WHERE id = ? AND next_attempt_at = ? AND status IN ('pending', 'retrying')`);
  const release = db.prepare(`UPDATE notification_deliveries SET next_attempt_at = ?
    WHERE id = ? AND next_attempt_at = ? AND status IN ('pending', 'retrying')`);
  const nextDue = db.prepare(`SELECT MIN(next_attempt_at) AS at FROM notification_deliveries
    WHERE status IN ('pending', 'retrying')`);
  const attempt = db.prepare(`UPDATE notification_deliveries
    SET status = @status, attempts = attempts + 1, last_error = @lastError,
        next_attempt_at = @nextAttemptAt, sent_at = @sentAt, updated_at = @at
    WHERE id = @id`);
  const claimedAttempt = db.prepare(`UPDATE notification_deliveries
    SET status = @status, attempts = attempts + 1, last_error = @lastError,
        next_attempt_at = @nextAttemptAt, sent_at = @sentAt, updated_at = @at
    WHERE id = @id AND next_attempt_at = @claimedUntil AND status IN ('pending', 'retrying')`);
  const lastSent = db.prepare(`SELECT sent_at AS at, id FROM notification_deliveries
    WHERE target_key = ? AND status = 'sent' ORDER BY sent_at DESC, id DESC LIMIT 1`);
  // Held back after the last one sent: later, or at the same millisecond and fanned out later.
  const suppressedSince = db.prepare(`SELECT COUNT(*) AS n FROM notification_deliveries
    WHERE target_key = ? AND status = 'suppressed' AND (created_at, id) > (?, ?)`);

  return {
    /**
     * Deliveries due at `now`, oldest first: every one, or those `scope`'s instance may attempt
     * (to one of its targets, or of one of its notifications). Awaited, as `unfanned`.
     */
    async due(now: number, limit = 50, scope?: DeliveryScope): Promise<DeliveryRow[]> {
      const rows = scope
        ? allAwaited(dueIn, now, JSON.stringify(scope.targetKeys), scope.instance, limit)
        : allAwaited(due, now, limit);
      return (await rows) as DeliveryRow[];
    },

    /**
     * Claims a due delivery for one attempt: its next attempt moves to `until` (past the send's
     * time limit), provided nobody moved it since it was read as `seen`. True when this caller
     * holds it; a claimant that dies leaves it due again at `until`.
     */
    claim(id: number, seen: number, until: number, at: number): boolean {
      return claim.run(until, at, id, seen).changes === 1;
    },

    /** Gives a claim back unattempted (shutdown): due again at `dueAt`, as before the claim. */
    release(id: number, claimedUntil: number, dueAt: number): boolean {
      return release.run(dueAt, id, claimedUntil).changes === 1;
    },

    /** When the next pending or retrying delivery is due; null when none is. */
    nextDueAt(): number | null {
      return (nextDue.get() as { at: number | null }).at;
    },

    /**
     * Records one attempt: sent, retrying (with the next time) or failed for good. With
     * `claimedUntil`, only while the claim holds; returns whether the row was written.
     */
    recordAttempt(
      id: number,
      outcome: {
        status: 'sent' | 'retrying' | 'failed';
        lastError: string | null;
        nextAttemptAt: number | null;
        at: number;
        claimedUntil?: number;
      },
    ): boolean {
      const row = {
        id,
        status: outcome.status,
        lastError: outcome.lastError,
        nextAttemptAt: outcome.nextAttemptAt,
        sentAt: outcome.status === 'sent' ? outcome.at : null,
        at: outcome.at,
      };
      if (outcome.claimedUntil === undefined) return attempt.run(row).changes === 1;
      return claimedAttempt.run({ ...row, claimedUntil: outcome.claimedUntil }).changes === 1;
    },

    /** Deliveries to `targetKey` held back by the rate limit since its last sent one. */
    suppressedSinceLastSent(targetKey: string): number {
      const last = lastSent.get(targetKey) as { at: number; id: number } | undefined;
      return (suppressedSince.get(targetKey, last?.at ?? 0, last?.id ?? 0) as { n: number }).n;
    },
  };
}
