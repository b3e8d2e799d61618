-- Sessions run against the simulated model (demo mode, tests) are marked as such.
ALTER TABLE sessions ADD COLUMN simulated INTEGER NOT NULL DEFAULT 0 CHECK (simulated IN (0, 1));

-- cooldown_actions gains the attempts the PreToolUse hook let through (source 'hook', outcome
-- unknown until the agent reports it with a [COOLDOWN] marker), so the limits do not depend on
-- the model reporting every restart.
CREATE TABLE cooldown_actions_v2 (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  service     TEXT    NOT NULL,
  action_type TEXT    NOT NULL CHECK (action_type IN ('restart', 'redeployment')),
  success     INTEGER CHECK (success IN (0, 1)), -- NULL: attempted, outcome not reported yet
  source      TEXT    NOT NULL DEFAULT 'agent' CHECK (source IN ('agent', 'hook')),
  command     TEXT,
  message     TEXT,
  tier        INTEGER,
  session_id  INTEGER REFERENCES sessions(id) ON DELETE SET NULL,
  created_at  INTEGER NOT NULL
);
INSERT INTO cooldown_actions_v2 (id, service, action_type, success, source, message, tier, session_id, created_at)
  SELECT id, service, action_type, success, 'agent', message, tier, session_id, created_at FROM cooldown_actions;
DROP TABLE cooldown_actions;
ALTER TABLE cooldown_actions_v2 RENAME TO cooldown_actions;
CREATE INDEX idx_cooldown_service ON cooldown_actions (service, action_type, created_at);
CREATE INDEX idx_cooldown_created ON cooldown_actions (created_at);

-- Remediation commands the PreToolUse hook refused because the service was in cooldown.
CREATE TABLE cooldown_blocks (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  service     TEXT    NOT NULL,
  action_type TEXT    NOT NULL CHECK (action_type IN ('restart', 'redeployment')),
  command     TEXT    NOT NULL,
  reason      TEXT    NOT NULL,
  session_id  INTEGER REFERENCES sessions(id) ON DELETE SET NULL,
  created_at  INTEGER NOT NULL
);
CREATE INDEX idx_cooldown_blocks_created ON cooldown_blocks (created_at);

-- When a memory's next weekly decay step falls due. Decay reads only rows that are due, so a
-- run that changes nothing reads nothing. 0 means "evaluate at the next decay run".
ALTER TABLE memories ADD COLUMN next_decay_at INTEGER NOT NULL DEFAULT 0;
DROP INDEX idx_memories_decay;
CREATE INDEX idx_memories_decay ON memories (active, pinned, next_decay_at);
