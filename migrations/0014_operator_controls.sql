-- Operator controls: cooldown resets and allowances, repeated alerts counted on their run,
-- repeated events grouped (and acknowledged), full-text search over events, and the indexes the
-- filtered, counted lists need at 100,000 rows.

-- What an operator did to a service's cooldown, and who and why. Nothing is deleted: a reset
-- stops the actions before it from counting; an allowance raises the limit until `until_at`.
CREATE TABLE cooldown_overrides (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  service     TEXT    NOT NULL,
  -- NULL: both restarts and redeployments
  action_type TEXT    CHECK (action_type IN ('restart', 'redeployment')),
  kind        TEXT    NOT NULL CHECK (kind IN ('reset', 'allow')),
  extra       INTEGER CHECK (extra IS NULL OR extra BETWEEN 1 AND 100),
  until_at    INTEGER,
  actor       TEXT    NOT NULL,
  reason      TEXT    NOT NULL,
  created_at  INTEGER NOT NULL,
  CHECK ((kind = 'allow') = (extra IS NOT NULL AND until_at IS NOT NULL))
);
CREATE INDEX idx_cooldown_overrides_created ON cooldown_overrides (created_at);
CREATE INDEX idx_cooldown_overrides_until ON cooldown_overrides (until_at);

-- How many more times the alert that started a session arrived within the de-duplication window.
CREATE TABLE session_alert_repeats (
  session_id INTEGER PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  repeats    INTEGER NOT NULL CHECK (repeats >= 0),
  last_at    INTEGER NOT NULL
);

-- Identical events (service, level, message) are one group with a count and first/last seen.
-- An acknowledgement covers the group's events up to `acked_at`: one that comes later reopens it.
-- `service` is '' for events without one, so that the key is unique.
CREATE TABLE event_groups (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  service    TEXT    NOT NULL,
  level      TEXT    NOT NULL,
  message    TEXT    NOT NULL,
  count      INTEGER NOT NULL,
  first_seen INTEGER NOT NULL,
  last_seen  INTEGER NOT NULL,
  acked_at   INTEGER,
  acked_by   TEXT,
  UNIQUE (service, level, message)
);
CREATE INDEX idx_event_groups_last ON event_groups (last_seen);
-- Hiding acknowledged events subtracts the few acknowledged groups' events from a count.
CREATE INDEX idx_event_groups_acked ON event_groups (acked_at) WHERE acked_at IS NOT NULL;

ALTER TABLE events ADD COLUMN group_id INTEGER;

INSERT INTO event_groups (service, level, message, count, first_seen, last_seen)
  SELECT COALESCE(service, ''), level, message, COUNT(*), MIN(created_at), MAX(created_at)
  FROM events GROUP BY COALESCE(service, ''), level, message;
UPDATE events SET group_id = (SELECT g.id FROM event_groups g
  WHERE g.service = COALESCE(events.service, '') AND g.level = events.level
    AND g.message = events.message);
CREATE INDEX idx_events_group ON events (group_id, created_at);

-- Words of an event's message and service, kept in step by the triggers below.
CREATE VIRTUAL TABLE events_fts USING fts5(
  message, service,
  content = 'events', content_rowid = 'id',
  tokenize = 'unicode61'
);
INSERT INTO events_fts (events_fts) VALUES ('rebuild');

-- The same words per group (far fewer rows than events), for searching the grouped view.
CREATE VIRTUAL TABLE event_groups_fts USING fts5(
  message, service,
  content = 'event_groups', content_rowid = 'id',
  tokenize = 'unicode61'
);
INSERT INTO event_groups_fts (event_groups_fts) VALUES ('rebuild');

-- A group's message and service never change, so an insert and a delete keep this in step.
CREATE TRIGGER event_groups_fts_ai AFTER INSERT ON event_groups BEGIN
  INSERT INTO event_groups_fts (rowid, message, service)
    VALUES (NEW.id, NEW.message, NEW.service);
END;
CREATE TRIGGER event_groups_fts_ad AFTER DELETE ON event_groups BEGIN
  INSERT INTO event_groups_fts (event_groups_fts, rowid, message, service)
    VALUES ('delete', OLD.id, OLD.message, OLD.service);
END;

-- Every writer of events (markers, the guard, the gateway, imports) goes through these, and
-- retention's deletes keep the counts and the first/last times true.
CREATE TRIGGER events_operator_ai AFTER INSERT ON events BEGIN
  INSERT OR IGNORE INTO event_groups (service, level, message, count, first_seen, last_seen)
    VALUES (COALESCE(NEW.service, ''), NEW.level, NEW.message, 0, NEW.created_at, NEW.created_at);
  UPDATE event_groups SET count = count + 1,
    first_seen = MIN(first_seen, NEW.created_at), last_seen = MAX(last_seen, NEW.created_at)
    WHERE service = COALESCE(NEW.service, '') AND level = NEW.level AND message = NEW.message;
  UPDATE events SET group_id = (SELECT id FROM event_groups
    WHERE service = COALESCE(NEW.service, '') AND level = NEW.level AND message = NEW.message)
    WHERE id = NEW.id;
  INSERT INTO events_fts (rowid, message, service) VALUES (NEW.id, NEW.message, NEW.service);
END;

CREATE TRIGGER events_operator_ad AFTER DELETE ON events BEGIN
  UPDATE event_groups SET count = count - 1,
    first_seen = COALESCE((SELECT MIN(created_at) FROM events WHERE group_id = OLD.group_id),
      first_seen),
    last_seen = COALESCE((SELECT MAX(created_at) FROM events WHERE group_id = OLD.group_id),
      last_seen)
    WHERE id = OLD.group_id;
  DELETE FROM event_groups WHERE id = OLD.group_id AND count <= 0;
  INSERT INTO events_fts (events_fts, rowid, message, service)
    VALUES ('delete', OLD.id, OLD.message, OLD.service);
END;

-- The Sessions filters: one index per filter gives its rows newest first (status has one
-- already); one per filter with the start time counts a filter within a time range.
CREATE INDEX idx_sessions_trigger ON sessions (trigger);
CREATE INDEX idx_sessions_tier ON sessions (tier);
CREATE INDEX idx_sessions_status_started ON sessions (status, started_at);
CREATE INDEX idx_sessions_trigger_started ON sessions (trigger, started_at);
CREATE INDEX idx_sessions_tier_started ON sessions (tier, started_at);
