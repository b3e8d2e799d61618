-- Sessions run against the simulated model (demo mode, tests) are marked as such.
ALTER TABLE sessions ADD COLUMN simulated INTEGER NOT NULL DEFAULT 0 CHECK (simulated IN (0, 1));

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
