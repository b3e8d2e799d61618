-- Conversation memory (seeds 000 and 001): conversations and their messages, the sliding-window
-- summaries with their version chain, the extraction windows with the gate's decisions, what
-- each extraction stored, the scopes shared with the ops sessions, and every model gateway job.

-- A conversation a client posts to (a chat, a Telegram bridge, a Claude Code session). `scope`
-- is the memory scope its extracted memories go to. `extracted_through_seq` is how far the
-- automatic extraction has read (-1: nothing yet).
CREATE TABLE conversations (
  id                    TEXT    PRIMARY KEY,
  scope                 TEXT    NOT NULL,
  created_at            INTEGER NOT NULL,
  updated_at            INTEGER NOT NULL,
  last_seq              INTEGER NOT NULL DEFAULT -1,
  message_count         INTEGER NOT NULL DEFAULT 0,
  extracted_through_seq INTEGER NOT NULL DEFAULT -1,
  extracted_at          INTEGER
);
CREATE INDEX idx_conversations_updated ON conversations (updated_at DESC, id);

-- Messages, numbered from 0 per conversation without gaps (seed 001: seq 0-1 is round 1).
CREATE TABLE conversation_messages (
  conversation_id TEXT    NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  seq             INTEGER NOT NULL CHECK (seq >= 0),
  role            TEXT    NOT NULL CHECK (role IN ('user', 'assistant', 'system', 'tool')),
  content         TEXT    NOT NULL,
  created_at      INTEGER NOT NULL,
  PRIMARY KEY (conversation_id, seq)
) WITHOUT ROWID;

-- Seed 001's memory table: one row per summarisation of the window (start_seq, end_seq),
-- incremental from base_summary_id. A completed row always has text; a failed one keeps why.
CREATE TABLE conversation_summaries (
  id                 INTEGER PRIMARY KEY AUTOINCREMENT,
  conversation_id    TEXT    NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  summary_text       TEXT,
  start_seq          INTEGER NOT NULL,
  end_seq            INTEGER NOT NULL,
  base_summary_id    INTEGER REFERENCES conversation_summaries(id) ON DELETE SET NULL,
  status             TEXT    NOT NULL DEFAULT 'processing'
                       CHECK (status IN ('processing', 'completed', 'failed')),
  error              TEXT,
  job_id             INTEGER,
  created_at         INTEGER NOT NULL,
  finished_at        INTEGER,
  generation_time_ms INTEGER,
  CHECK (status <> 'completed' OR length(summary_text) > 0),
  CHECK (end_seq >= start_seq)
);
-- The most recent completed summary of a conversation (seed 001's index).
CREATE INDEX idx_summaries_conversation_status
  ON conversation_summaries (conversation_id, status, end_seq DESC);
-- One processing row per conversation at a time, enforced by the database itself.
CREATE UNIQUE INDEX idx_summaries_one_processing
  ON conversation_summaries (conversation_id) WHERE status = 'processing';
CREATE INDEX idx_summaries_status_created ON conversation_summaries (status, created_at);

-- Each ~500-token window the extraction read: the gate's decision with its reason (so its
-- precision can be reviewed), and what the extractor made of a yes.
CREATE TABLE extraction_windows (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  conversation_id TEXT    NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  start_seq       INTEGER NOT NULL,
  end_seq         INTEGER NOT NULL,
  tokens          INTEGER NOT NULL,
  status          TEXT    NOT NULL CHECK (status IN ('rejected', 'extracted', 'failed')),
  worth           INTEGER CHECK (worth IN (0, 1)),
  reason          TEXT,
  gate_job_id     INTEGER,
  extract_job_id  INTEGER,
  candidates      INTEGER NOT NULL DEFAULT 0,
  created         INTEGER NOT NULL DEFAULT 0,
  reinforced      INTEGER NOT NULL DEFAULT 0,
  error           TEXT,
  created_at      INTEGER NOT NULL
);
CREATE INDEX idx_extraction_windows_conversation ON extraction_windows (conversation_id, id);

-- The memories an extraction created or reinforced, with the extractor's own labels. memory_id
-- is not a foreign key: the record stays when the operator deletes the memory.
CREATE TABLE conversation_memories (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  conversation_id TEXT    NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  window_id       INTEGER NOT NULL REFERENCES extraction_windows(id) ON DELETE CASCADE,
  memory_id       INTEGER NOT NULL,
  action          TEXT    NOT NULL CHECK (action IN ('created', 'reinforced', 'superseded')),
  type            TEXT    NOT NULL CHECK (type IN
                    ('decision', 'insight', 'fact', 'preference', 'project', 'conversation')),
  importance      INTEGER NOT NULL CHECK (importance BETWEEN 1 AND 5),
  tags_json       TEXT    NOT NULL DEFAULT '[]',
  created_at      INTEGER NOT NULL
);
CREATE INDEX idx_conversation_memories_conversation ON conversation_memories (conversation_id, id);
CREATE INDEX idx_conversation_memories_memory ON conversation_memories (memory_id);

-- Memory scopes the operator shares with the ops sessions (their block includes them).
CREATE TABLE memory_scopes (
  name            TEXT    PRIMARY KEY,
  shared_with_ops INTEGER NOT NULL DEFAULT 0 CHECK (shared_with_ops IN (0, 1)),
  updated_at      INTEGER NOT NULL
);

-- Every job of the model gateway: what it was, which backend and model ran it, what it cost.
-- `kind` is not constrained here: later jobs (span summaries, HyDE) add kinds in code.
CREATE TABLE gateway_jobs (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  kind          TEXT    NOT NULL,
  backend       TEXT    NOT NULL,
  model         TEXT,
  outcome       TEXT    NOT NULL DEFAULT 'running'
                  CHECK (outcome IN ('running', 'ok', 'failed', 'invalid_output', 'timed_out',
                    'unavailable')),
  ref           TEXT,
  input_tokens  INTEGER,
  output_tokens INTEGER,
  cost_usd      REAL,
  duration_ms   INTEGER,
  attempts      INTEGER NOT NULL DEFAULT 0,
  error         TEXT,
  created_at    INTEGER NOT NULL,
  finished_at   INTEGER
);
CREATE INDEX idx_gateway_jobs_created ON gateway_jobs (created_at);
CREATE INDEX idx_gateway_jobs_kind ON gateway_jobs (kind, created_at);

-- The ops block counts the eligible memories of its scopes: a covering index keeps that a range
-- scan (4 ms at 100,000 memories) instead of a read of every active row (67 ms).
CREATE INDEX idx_memories_eligible ON memories (active, scope, confidence);
