-- Sessions gain the status 'interrupted' (watchkeeper stopped while the session ran; set at the
-- next start-up) and the process group id of their CLI (pgid), so that start-up can end a group
-- left behind by a killed watchkeeper.
--
-- SQLite cannot change a CHECK constraint in place: the table is rebuilt (create, copy, drop,
-- rename). The migrator runs this with foreign key enforcement off and checks every reference
-- before it commits; with enforcement on, dropping the old table would set session_id to NULL
-- in events, memories, memory_history and cooldown rows.
CREATE TABLE sessions_v5 (
  id                INTEGER PRIMARY KEY AUTOINCREMENT,
  status            TEXT    NOT NULL CHECK (status IN
                      ('running', 'completed', 'failed', 'timed_out', 'stopped', 'escalated',
                       'interrupted')),
  trigger           TEXT    NOT NULL CHECK (trigger IN
                      ('scheduled', 'manual', 'api', 'alert', 'escalation', 'import')),
  tier              INTEGER NOT NULL DEFAULT 1 CHECK (tier BETWEEN 1 AND 3),
  model             TEXT,
  prompt            TEXT,
  parent_session_id INTEGER REFERENCES sessions(id) ON DELETE SET NULL,
  cli_session_id    TEXT,
  started_at        INTEGER NOT NULL,
  ended_at          INTEGER,
  exit_code         INTEGER,
  result_subtype    TEXT,
  is_error          INTEGER CHECK (is_error IN (0, 1)),
  cost_usd          REAL,
  num_turns         INTEGER,
  duration_ms       INTEGER,
  duration_api_ms   INTEGER,
  usage_json        TEXT,
  response          TEXT,
  error             TEXT,
  log_path          TEXT,
  stream_stats_json TEXT,
  simulated         INTEGER NOT NULL DEFAULT 0 CHECK (simulated IN (0, 1)),
  -- The CLI's process group (it runs as a group leader, so this is also its pid); NULL until
  -- spawned, and for imports.
  pgid              INTEGER
);
INSERT INTO sessions_v5 (id, status, trigger, tier, model, prompt, parent_session_id,
    cli_session_id, started_at, ended_at, exit_code, result_subtype, is_error, cost_usd, num_turns,
    duration_ms, duration_api_ms, usage_json, response, error, log_path, stream_stats_json,
    simulated)
  SELECT id, status, trigger, tier, model, prompt, parent_session_id, cli_session_id, started_at,
    ended_at, exit_code, result_subtype, is_error, cost_usd, num_turns, duration_ms,
    duration_api_ms, usage_json, response, error, log_path, stream_stats_json, simulated
  FROM sessions;
-- Keep the AUTOINCREMENT high-water mark: a deleted session's id is never handed out again.
DELETE FROM sqlite_sequence WHERE name = 'sessions_v5';
INSERT INTO sqlite_sequence (name, seq)
  SELECT 'sessions_v5', seq FROM sqlite_sequence WHERE name = 'sessions';
DROP TABLE sessions;
ALTER TABLE sessions_v5 RENAME TO sessions;
CREATE INDEX idx_sessions_started ON sessions (started_at);
CREATE INDEX idx_sessions_parent ON sessions (parent_session_id);
CREATE INDEX idx_sessions_status ON sessions (status);
