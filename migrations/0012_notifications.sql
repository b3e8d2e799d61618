-- Notifications (critical events, escalations, failed sessions, refused remediation) and their
-- delivery to each target. One row per notification: a repeat of the same kind, service and
-- message inside the de-duplication window only raises `count`. `fanned_out` is 0 until the
-- dispatcher has made a delivery row per configured target (the PreToolUse hook, a process of
-- its own, records notifications without knowing the targets). A delivery names its target by
-- `target_key` (the redacted URL, never a secret) and keeps every attempt's outcome, so that a
-- restart loses no pending retry.
CREATE TABLE notifications (
  id           INTEGER PRIMARY KEY,
  kind         TEXT    NOT NULL
               CHECK (kind IN ('critical_event', 'escalation', 'session_failed', 'guard_refused', 'test')),
  level        TEXT    NOT NULL CHECK (level IN ('info', 'warning', 'failure')),
  service      TEXT,
  title        TEXT    NOT NULL,
  body         TEXT    NOT NULL,
  dedup_key    TEXT    NOT NULL,
  count        INTEGER NOT NULL DEFAULT 1,
  session_id   INTEGER REFERENCES sessions (id) ON DELETE SET NULL,
  fanned_out   INTEGER NOT NULL DEFAULT 0,
  created_at   INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL
);
CREATE INDEX idx_notifications_dedup ON notifications (dedup_key, created_at);
CREATE INDEX idx_notifications_fanout ON notifications (fanned_out) WHERE fanned_out = 0;
CREATE INDEX idx_notifications_session ON notifications (session_id);
CREATE INDEX idx_notifications_created ON notifications (created_at);

CREATE TABLE notification_deliveries (
  id              INTEGER PRIMARY KEY,
  notification_id INTEGER NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
  target_key      TEXT    NOT NULL,
  status          TEXT    NOT NULL
                  CHECK (status IN ('pending', 'retrying', 'sent', 'failed', 'suppressed')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  last_error      TEXT,
  next_attempt_at INTEGER,
  sent_at         INTEGER,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL
);
CREATE INDEX idx_deliveries_notification ON notification_deliveries (notification_id);
CREATE INDEX idx_deliveries_due ON notification_deliveries (next_attempt_at)
  WHERE status IN ('pending', 'retrying');
CREATE INDEX idx_deliveries_target ON notification_deliveries (target_key, created_at);
