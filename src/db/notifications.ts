/**
 * The notifications table (what watchkeeper has to tell, de-duplicated with a count) and
 * notification_deliveries (each target's status, attempts, last error and next retry).
 *
 * Several instances may share the tables. A notification is de-duplicated among, and fanned out
 * once by, the instance that recorded it (to its targets); a delivery is sent by whichever instance claims it first:
 * the claim moves its next attempt past the send's time limit, so that a claimant that dies
 * leaves it due again for another.
 */
import type { Db } from './open.js';

export const NOTIFICATION_KINDS = [
  'critical_event',
  'escalation',
  'session_failed',
  'guard_refused',
  'test',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];
export type NotificationLevel = 'info' | 'warning' | 'failure';
export const DELIVERY_STATUSES = ['pending', 'retrying', 'sent', 'failed', 'suppressed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface NotificationRow {
  id: number;
  kind: NotificationKind;
  level: NotificationLevel;
  service: string | null;
  title: string;
  body: string;
  dedupKey: string;
  count: number;
  sessionId: number | null;
  fannedOut: boolean;
  createdAt: number;
  lastSeenAt: number;
}

export interface NewNotification {
  kind: NotificationKind;
  level: NotificationLevel;
  service: string | null;
  title: string;
  body: string;
  dedupKey: string;
  sessionId: number | null;
  at: number;
}

export interface DeliveryRow {
  id: number;
  notificationId: number;
  targetKey: string;
  status: DeliveryStatus;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: number | null;
  sentAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface RecordOutcome {
  id: number;
  /** False when a notification with the same key inside the window was counted instead. */
  created: boolean;
  count: number;
}

const N_COLUMNS = `id, kind, level, service, title, body, dedup_key AS dedupKey, count,
  session_id AS sessionId, fanned_out AS fannedOut, created_at AS createdAt,
  last_seen_at AS lastSeenAt`;
const D_COLUMNS = `id, notification_id AS notificationId, target_key AS targetKey, status, attempts,
  last_error AS lastError, next_attempt_at AS nextAttemptAt, sent_at AS sentAt,
  created_at AS createdAt, updated_at AS updatedAt`;

type RawNotification = Omit<NotificationRow, 'fannedOut'> & { fannedOut: number };
const fromRaw = (r: RawNotification): NotificationRow => ({ ...r, fannedOut: r.fannedOut === 1 });

/** Which deliveries an instance may attempt: those to its targets, and its own notifications'. */
export interface DeliveryScope {
  instance: string;
  targetKeys: string[];
}

export function createNotificationStore(db: Db, instance = 'local') {
  // De-duplicated per instance: each instance's notification goes to that instance's targets.
  const findRecent = db.prepare(`SELECT id, count FROM notifications
    WHERE dedup_key = ? AND created_at >= ? AND instance = ?
    ORDER BY created_at DESC, id DESC LIMIT 1`);
  // Written first, read after: on a SQLite file shared with another process (the hook, another
  // instance) a transaction that reads before it writes can find its snapshot stale and fail.
  const bumpRecent = db.prepare(`UPDATE notifications SET count = count + 1, last_seen_at = ?
    WHERE id = (SELECT id FROM notifications WHERE dedup_key = ? AND created_at >= ?
      AND instance = ? ORDER BY created_at DESC, id DESC LIMIT 1)`);
  const insert = db.prepare(`INSERT INTO notifications
    (kind, level, service, title, body, dedup_key, session_id, created_at, last_seen_at, instance)
    VALUES (@kind, @level, @service, @title, @body, @dedupKey, @sessionId, @at, @at, @instance)`);
  const get = db.prepare(`SELECT ${N_COLUMNS} FROM notifications WHERE id = ?`);
  const unfanned = db.prepare(`SELECT ${N_COLUMNS} FROM notifications
    WHERE fanned_out = 0 AND instance = ? ORDER BY id LIMIT ?`);
  // The guard makes fanning out happen once, whoever else tries at the same time.
  const markFanned = db.prepare(
    'UPDATE notifications SET fanned_out = 1 WHERE id = ? AND fanned_out = 0',
  );
  const insertDelivery = db.prepare(`INSERT INTO notification_deliveries
    (notification_id, target_key, status, next_attempt_at, last_error, created_at, updated_at)
    VALUES (@notificationId, @targetKey, @status, @nextAttemptAt, @lastError, @at, @at)`);
  const countRecent = db.prepare(`SELECT COUNT(*) AS n FROM notification_deliveries
    WHERE target_key = ? AND created_at >= ? AND status <> 'suppressed'`);
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
  const recent = db.prepare(
    `SELECT ${N_COLUMNS} FROM notifications ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
  );
  const total = db.prepare('SELECT COUNT(*) AS n FROM notifications');
  const deliveriesOf = db.prepare(`SELECT ${D_COLUMNS} FROM notification_deliveries
    WHERE notification_id IN (SELECT CAST(value AS INTEGER) FROM json_each(?)) ORDER BY id`);
  const statusCounts = db.prepare(
    'SELECT status, COUNT(*) AS n FROM notification_deliveries GROUP BY status',
  );

  return {
    /** The instance whose notifications this store records and fans out. */
    instance,

    /**
     * Stores a notification, or counts it on the one with the same key created at or after
     * `windowStart` (de-duplication). One transaction, so two processes never both create it.
     */
    record: db.transaction((n: NewNotification, windowStart: number | null): RecordOutcome => {
      const bumped =
        windowStart !== null &&
        bumpRecent.run(n.at, n.dedupKey, windowStart, instance).changes === 1;
      if (bumped) {
        const hit = findRecent.get(n.dedupKey, windowStart, instance) as {
          id: number;
          count: number;
        };
        return { id: hit.id, created: false, count: hit.count };
      }
      const id = Number(insert.run({ ...n, instance }).lastInsertRowid);
      return { id, created: true, count: 1 };
    }),

    get(id: number): NotificationRow | null {
      const r = get.get(id) as RawNotification | undefined;
      return r ? fromRaw(r) : null;
    },

    /** This instance's notifications that have no delivery rows yet, oldest first. */
    unfanned(limit = 100): NotificationRow[] {
      return (unfanned.all(instance, limit) as RawNotification[]).map(fromRaw);
    },

    /**
     * A delivery row per target, and the notification marked as fanned out, at once; false (and
     * nothing written) when it was fanned out already.
     */
    fanOut: db.transaction(
      (
        notificationId: number,
        deliveries: {
          targetKey: string;
          status: 'pending' | 'suppressed';
          lastError: string | null;
        }[],
        at: number,
      ): boolean => {
        // Marked first: the write lock is taken before anything is read or written.
        if (markFanned.run(notificationId).changes !== 1) return false;
        for (const d of deliveries) {
          insertDelivery.run({
            notificationId,
            targetKey: d.targetKey,
            status: d.status,
            nextAttemptAt: d.status === 'pending' ? at : null,
            lastError: d.lastError,
            at,
          });
        }
        return true;
      },
    ),

    /** Deliveries to `targetKey` created at or after `since`, the suppressed ones not counted. */
    countSince(targetKey: string, since: number): number {
      return (countRecent.get(targetKey, since) as { n: number }).n;
    },

    /**
     * Deliveries due at `now`, oldest first: every one, or those `scope`'s instance may attempt
     * (to one of its targets, or of one of its notifications).
     */
    due(now: number, limit = 50, scope?: DeliveryScope): DeliveryRow[] {
      if (!scope) return due.all(now, limit) as DeliveryRow[];
      return dueIn.all(
        now,
        JSON.stringify(scope.targetKeys),
        scope.instance,
        limit,
      ) as DeliveryRow[];
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

    /** Newest first, each with its deliveries. */
    list(limit = 50, offset = 0): { notification: NotificationRow; deliveries: DeliveryRow[] }[] {
      const rows = (recent.all(limit, offset) as RawNotification[]).map(fromRaw);
      const deliveries = deliveriesOf.all(JSON.stringify(rows.map((r) => r.id))) as DeliveryRow[];
      return rows.map((notification) => ({
        notification,
        deliveries: deliveries.filter((d) => d.notificationId === notification.id),
      }));
    },

    total(): number {
      return (total.get() as { n: number }).n;
    },

    /** Deliveries per status, every status present (0 when none). */
    statusCounts(): Record<DeliveryStatus, number> {
      const out = Object.fromEntries(DELIVERY_STATUSES.map((s) => [s, 0])) as Record<
        DeliveryStatus,
        number
      >;
      for (const r of statusCounts.all() as { status: DeliveryStatus; n: number }[]) {
        out[r.status] = r.n;
      }
      return out;
    },
  };
}

export type NotificationStore = ReturnType<typeof createNotificationStore>;
