-- A fleet of instances sharing one database. Every session, event and cooldown action carries the
-- instance that made it; a memory carries the instance that learned it, or 'fleet' when shared.
-- A running session's heartbeat (epoch ms) is its lease: an instance that stops beating is dead,
-- and its running sessions are marked interrupted by whichever instance notices.
-- One SQLite file is one instance, named 'local' until WATCHKEEPER_INSTANCE names it.
ALTER TABLE sessions ADD COLUMN instance TEXT NOT NULL DEFAULT 'local';
ALTER TABLE sessions ADD COLUMN heartbeat_at INTEGER;
ALTER TABLE events ADD COLUMN instance TEXT NOT NULL DEFAULT 'local';
ALTER TABLE cooldown_actions ADD COLUMN instance TEXT NOT NULL DEFAULT 'local';
ALTER TABLE memories ADD COLUMN instance TEXT NOT NULL DEFAULT 'local';

CREATE INDEX sessions_instance_status ON sessions (instance, status);
CREATE INDEX events_instance ON events (instance, id);
CREATE INDEX cooldown_actions_instance ON cooldown_actions (instance, service, created_at);
CREATE INDEX memories_instance ON memories (instance);
