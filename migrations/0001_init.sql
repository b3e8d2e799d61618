-- watchkeeper schema. All times are INTEGER epoch milliseconds.

CREATE TABLE sessions (
  id                INTEGER PRIMARY KEY AUTOINCREMENT,
  status            TEXT    NOT NULL CHECK (status IN
                      ('running', 'completed', 'failed', 'timed_out', 'stopped', 'escalated')),
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
  stream_stats_json TEXT
);
CREATE INDEX idx_sessions_started ON sessions (started_at);
CREATE INDEX idx_sessions_parent ON sessions (parent_session_id);
CREATE INDEX idx_sessions_status ON sessions (status);

CREATE TABLE events (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id INTEGER REFERENCES sessions(id) ON DELETE SET NULL,
  source     TEXT    NOT NULL CHECK (source IN ('agent', 'system')),
  level      TEXT    NOT NULL CHECK (level IN ('info', 'warning', 'critical')),
  service    TEXT,
  message    TEXT    NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX idx_events_created ON events (created_at);
CREATE INDEX idx_events_session ON events (session_id, created_at);
CREATE INDEX idx_events_level ON events (level, created_at);
CREATE INDEX idx_events_service ON events (service, created_at);

CREATE TABLE memories (
  id                 INTEGER PRIMARY KEY AUTOINCREMENT,
  service            TEXT,                -- NULL: a general memory
  category           TEXT    NOT NULL CHECK (category IN
                       ('timing', 'dependency', 'behavior', 'remediation', 'maintenance')),
  observation        TEXT    NOT NULL CHECK (length(observation) > 0),
  confidence         REAL    NOT NULL CHECK (confidence BETWEEN 0 AND 1),
  -- confidence as of last_reinforced_at; decay is computed from here, so it is idempotent
  base_confidence    REAL    NOT NULL CHECK (base_confidence BETWEEN 0 AND 1),
  active             INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
  pinned             INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
  created_at         INTEGER NOT NULL,
  updated_at         INTEGER NOT NULL,
  last_reinforced_at INTEGER NOT NULL,
  session_id         INTEGER REFERENCES sessions(id) ON DELETE SET NULL,
  tier               INTEGER NOT NULL DEFAULT 0 CHECK (tier BETWEEN 0 AND 3) -- 0: the operator
);
CREATE INDEX idx_memories_context ON memories (active, service, confidence DESC);
CREATE INDEX idx_memories_rank ON memories (active, confidence DESC, id);
CREATE INDEX idx_memories_decay ON memories (active, pinned, last_reinforced_at);
CREATE INDEX idx_memories_category ON memories (category);
CREATE INDEX idx_memories_updated ON memories (updated_at);

-- Every change to a memory. memory_id is deliberately not a foreign key: the history of a
-- deleted memory stays for the audit trail.
CREATE TABLE memory_history (
  id             INTEGER PRIMARY KEY AUTOINCREMENT,
  memory_id      INTEGER NOT NULL,
  action         TEXT    NOT NULL CHECK (action IN ('created', 'reinforced', 'decayed',
                   'deactivated', 'edited', 'reactivated', 'pinned', 'unpinned', 'deleted')),
  old_confidence REAL,
  new_confidence REAL,
  observation    TEXT,
  session_id     INTEGER REFERENCES sessions(id) ON DELETE SET NULL,
  created_at     INTEGER NOT NULL
);
CREATE INDEX idx_memory_history_memory ON memory_history (memory_id, created_at);

CREATE TABLE cooldown_actions (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  service     TEXT    NOT NULL,
  action_type TEXT    NOT NULL CHECK (action_type IN ('restart', 'redeployment')),
  success     INTEGER NOT NULL CHECK (success IN (0, 1)),
  message     TEXT,
  tier        INTEGER,
  session_id  INTEGER REFERENCES sessions(id) ON DELETE SET NULL,
  created_at  INTEGER NOT NULL
);
CREATE INDEX idx_cooldown_service ON cooldown_actions (service, action_type, created_at);
