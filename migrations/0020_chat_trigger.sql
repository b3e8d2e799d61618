-- Sessions gain the trigger 'chat': a message to the OpenAI-compatible chat endpoint
-- (POST /v1/chat/completions) starts a run with the message as its prompt.
--
-- SQLite cannot change a CHECK constraint in place: the table is rebuilt (create, copy, drop,
-- rename), as 0005_interrupted.sql did, with every column later migrations added, in the same
-- order. The migrator runs this with foreign key enforcement off and checks every reference
-- before it commits; with enforcement on, dropping the old table would empty or delete the rows
-- that reference a session.
CREATE TABLE sessions_v20 (
  id                INTEGER PRIMARY KEY AUTOINCREMENT,
  status            TEXT    NOT NULL CHECK (status IN
                      ('running', 'completed', 'failed', 'timed_out', 'stopped', 'escalated',
                       'interrupted')),
  trigger           TEXT    NOT NULL CHECK (trigger IN
                      ('scheduled', 'manual', 'api', 'alert', 'escalation', 'import', 'chat')),
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
  pgid              INTEGER,
  system_prompt     TEXT,
  summary           TEXT,
  summary_source    TEXT    CHECK (summary_source IN ('model', 'final_response')),
  summary_status    TEXT    CHECK (summary_status IN ('pending', 'done', 'failed')),
  summary_error     TEXT,
  summary_job_id    INTEGER,
  summary_at        INTEGER,
  summary_origin    TEXT    CHECK (summary_origin IN ('claudeops')),
  instance          TEXT    NOT NULL DEFAULT 'local',
  heartbeat_at      INTEGER
);
INSERT INTO sessions_v20 (id, status, trigger, tier, model, prompt, parent_session_id,
    cli_session_id, started_at, ended_at, exit_code, result_subtype, is_error, cost_usd, num_turns,
    duration_ms, duration_api_ms, usage_json, response, error, log_path, stream_stats_json,
    simulated, pgid, system_prompt, summary, summary_source, summary_status, summary_error,
    summary_job_id, summary_at, summary_origin, instance, heartbeat_at)
  SELECT id, status, trigger, tier, model, prompt, parent_session_id, cli_session_id, started_at,
    ended_at, exit_code, result_subtype, is_error, cost_usd, num_turns, duration_ms,
    duration_api_ms, usage_json, response, error, log_path, stream_stats_json, simulated, pgid,
    system_prompt, summary, summary_source, summary_status, summary_error, summary_job_id,
    summary_at, summary_origin, instance, heartbeat_at
  FROM sessions;
-- Keep the AUTOINCREMENT high-water mark: a deleted session's id is never handed out again.
DELETE FROM sqlite_sequence WHERE name = 'sessions_v20';
INSERT INTO sqlite_sequence (name, seq)
  SELECT 'sessions_v20', seq FROM sqlite_sequence WHERE name = 'sessions';
DROP TABLE sessions;
ALTER TABLE sessions_v20 RENAME TO sessions;
CREATE INDEX idx_sessions_started ON sessions (started_at);
CREATE INDEX idx_sessions_parent ON sessions (parent_session_id);
CREATE INDEX idx_sessions_status ON sessions (status);
CREATE INDEX idx_sessions_trigger ON sessions (trigger);
CREATE INDEX idx_sessions_tier ON sessions (tier);
CREATE INDEX idx_sessions_status_started ON sessions (status, started_at);
CREATE INDEX idx_sessions_trigger_started ON sessions (trigger, started_at);
CREATE INDEX idx_sessions_tier_started ON sessions (tier, started_at);
CREATE INDEX sessions_instance_status ON sessions (instance, status);
