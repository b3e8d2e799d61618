/** The notifications and deliveries tables' rows, kinds and statuses, and their columns. */
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
  /** The instance that raised it (`local` for a lone sidecar). */
  instance: string;
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

/** Which deliveries an instance may attempt: those to its targets, and its own notifications'. */
export interface DeliveryScope {
  instance: string;
  targetKeys: string[];
}

export const N_COLUMNS = `id, kind, level, service, title, body, dedup_key AS dedupKey, count,
  session_id AS sessionId, fanned_out AS fannedOut, created_at AS createdAt,
  last_seen_at AS lastSeenAt, instance`;
export const D_COLUMNS = `id, notification_id AS notificationId, target_key AS targetKey, status, attempts,
  last_error AS lastError, next_attempt_at AS nextAttemptAt, sent_at AS sentAt,
  created_at AS createdAt, updated_at AS updatedAt`;

export type RawNotification = Omit<NotificationRow, 'fannedOut'> & { fannedOut: number };
export const fromRaw = (r: RawNotification): NotificationRow => ({
  ...r,
  fannedOut: r.fannedOut === 1,
});
