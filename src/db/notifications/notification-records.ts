/**
 * Recording notifications (de-duplicated per instance, with a count), fanning each out once to
 * its instance's targets as deliveries, and the pages and counts the dashboard shows.
 */
import { allAwaited, type Db, getAwaited } from '../engine.js';
import {
  D_COLUMNS,
  DELIVERY_STATUSES,
  type DeliveryRow,
  type DeliveryStatus,
  fromRaw,
  N_COLUMNS,
  type NewNotification,
  type NotificationRow,
  type RawNotification,
  type RecordOutcome,
} from './notification-types.js';

export function notificationRecords(db: Db, instance: string) {
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
  const recent = db.prepare(
    `SELECT ${N_COLUMNS} FROM notifications ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
  );
  const total = db.prepare('SELECT COUNT(*) AS n FROM notifications');
  // The deliveries of the same page of notifications, read beside it.
  const deliveriesOfPage = db.prepare(`SELECT ${D_COLUMNS} FROM notification_deliveries
    WHERE notification_id IN (SELECT id FROM notifications
      ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?) ORDER BY id`);
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

    /**
     * This instance's notifications that have no delivery rows yet, oldest first. Awaited: the
     * notifier asks every round, mostly for nothing (on PostgreSQL the event loop goes on).
     */
    async unfanned(limit = 100): Promise<NotificationRow[]> {
      return ((await allAwaited(unfanned, instance, limit)) as RawNotification[]).map(fromRaw);
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
     * Newest first, each with its deliveries. The page's reads are awaited (the dashboard polls
     * it) and go side by side.
     */
    async list(
      limit = 50,
      offset = 0,
    ): Promise<{ notification: NotificationRow; deliveries: DeliveryRow[] }[]> {
      const [raw, deliveries] = await Promise.all([
        allAwaited(recent, limit, offset) as Promise<RawNotification[]>,
        allAwaited(deliveriesOfPage, limit, offset) as Promise<DeliveryRow[]>,
      ]);
      return raw.map(fromRaw).map((notification) => ({
        notification,
        deliveries: deliveries.filter((d) => d.notificationId === notification.id),
      }));
    },

    async total(): Promise<number> {
      return ((await getAwaited(total)) as { n: number }).n;
    },

    /** Deliveries per status, every status present (0 when none). */
    async statusCounts(): Promise<Record<DeliveryStatus, number>> {
      const out = Object.fromEntries(DELIVERY_STATUSES.map((s) => [s, 0])) as Record<
        DeliveryStatus,
        number
      >;
      const rows = (await allAwaited(statusCounts)) as { status: DeliveryStatus; n: number }[];
      for (const r of rows) out[r.status] = r.n;
      return out;
    },
  };
}
