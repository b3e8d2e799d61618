/**
 * The notifications table (what watchkeeper has to tell, de-duplicated with a count) and
 * notification_deliveries (each target's status, attempts, last error and next retry).
 *
 * Several instances may share the tables. A notification is de-duplicated among, and fanned out
 * once by, the instance that recorded it (to its targets); a delivery is sent by whichever instance claims it first:
 * the claim moves its next attempt past the send's time limit, so that a claimant that dies
 * leaves it due again for another.
 */
import type { Db } from '../engine.js';
import { notificationDeliveries } from './notification-deliveries.js';
import { notificationRecords } from './notification-records.js';

export {
  DELIVERY_STATUSES,
  type DeliveryRow,
  type DeliveryScope,
  type DeliveryStatus,
  type NewNotification,
  NOTIFICATION_KINDS,
  type NotificationKind,
  type NotificationLevel,
  type NotificationRow,
  type RecordOutcome,
} from './notification-types.js';

export function createNotificationStore(db: Db, instance = 'local') {
  return { ...notificationRecords(db, instance), ...notificationDeliveries(db) };
}

export type NotificationStore = ReturnType<typeof createNotificationStore>;
