-- A memory's history gains the actions 'shared' and 'unshared': the operator gives a memory to
-- every instance of the fleet, or back to this one. They were recorded as 'edited' before, with
-- what happened in the evidence; those rows become what they were.
--
-- SQLite cannot change a CHECK constraint in place: the table is rebuilt (create, copy, drop,
-- rename), as 0020_chat_trigger.sql did, with every column later migrations added, in the same
-- order, and its indexes.
CREATE TABLE memory_history_v21 (
  id                INTEGER PRIMARY KEY AUTOINCREMENT,
  memory_id         INTEGER NOT NULL,
  action            TEXT    NOT NULL CHECK (action IN ('created', 'reinforced', 'decayed',
                      'deactivated', 'edited', 'reactivated', 'pinned', 'unpinned', 'deleted',
                      'superseded', 'archived', 'restored', 'merged', 'imported', 'shared',
                      'unshared')),
  old_confidence    REAL,
  new_confidence    REAL,
  observation       TEXT,
  session_id        INTEGER REFERENCES sessions(id) ON DELETE SET NULL,
  created_at        INTEGER NOT NULL,
  related_memory_id INTEGER,
  source            TEXT,
  evidence          TEXT
);
INSERT INTO memory_history_v21 (id, memory_id, action, old_confidence, new_confidence,
  observation, session_id, created_at, related_memory_id, source, evidence)
  SELECT id, memory_id,
    CASE
      WHEN action = 'edited' AND evidence LIKE 'shared with the fleet by instance %' THEN 'shared'
      WHEN action = 'edited' AND evidence LIKE 'unshared: kept by instance %' THEN 'unshared'
      ELSE action
    END,
    old_confidence, new_confidence, observation, session_id, created_at, related_memory_id,
    source, evidence
  FROM memory_history;
-- Keep the AUTOINCREMENT high-water mark: a deleted row's id is never handed out again.
DELETE FROM sqlite_sequence WHERE name = 'memory_history_v21';
INSERT INTO sqlite_sequence (name, seq)
  SELECT 'memory_history_v21', seq FROM sqlite_sequence WHERE name = 'memory_history';
DROP TABLE memory_history;
ALTER TABLE memory_history_v21 RENAME TO memory_history;
CREATE INDEX idx_memory_history_memory ON memory_history (memory_id, created_at);
CREATE INDEX idx_memory_history_session ON memory_history (session_id);
CREATE INDEX idx_memory_history_created ON memory_history (created_at);
