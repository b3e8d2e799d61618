-- What `watchkeeper import-claudeops` took from a Claude Ops (Go sidecar) database: one row per
-- source row imported, so that importing the same database again adds nothing. `source` names the
-- database by when its schema was created (the first row of goose's version table), so a copy that
-- was moved or renamed is still the same database, and two sidecars' databases stay apart.
-- `target_id` is the row made from it; `detail_json` keeps what has no column here (a session's
-- summary, handoff context, prompt file and log file). target_id is not a foreign key: the record
-- stays when retention prunes the row, so that a pruned row is not imported again.
CREATE TABLE claudeops_imports (
  source      TEXT    NOT NULL,
  kind        TEXT    NOT NULL CHECK (kind IN ('session', 'event', 'memory', 'cooldown')),
  source_id   INTEGER NOT NULL,
  target_id   INTEGER NOT NULL,
  detail_json TEXT,
  imported_at INTEGER NOT NULL,
  PRIMARY KEY (source, kind, source_id)
) WITHOUT ROWID;
CREATE INDEX idx_claudeops_imports_target ON claudeops_imports (kind, target_id);

-- Retention (`watchkeeper prune`, WATCHKEEPER_RETENTION) deletes old sessions, and each deletion
-- sets session_id to NULL in the rows that name the session: without an index on each of those
-- columns, SQLite reads the whole table once per deleted session.
CREATE INDEX idx_memories_session ON memories (session_id);
CREATE INDEX idx_memory_history_session ON memory_history (session_id);
CREATE INDEX idx_cooldown_session ON cooldown_actions (session_id);
CREATE INDEX idx_cooldown_blocks_session ON cooldown_blocks (session_id);
-- ... and it deletes old history rows by their date.
CREATE INDEX idx_memory_history_created ON memory_history (created_at);
