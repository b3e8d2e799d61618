-- Semantic recall: services with what they are, a full-text index and vectors for memories,
-- supersession, surfacing counters and what each session was given.

-- Every service watchkeeper knows something about. The description says what the service is,
-- from the operator, the agent ([SERVICE:name] marker) or the built-in catalog, in that order of
-- precedence; it is indexed with each memory of the service.
CREATE TABLE services (
  name               TEXT    PRIMARY KEY,
  description        TEXT,
  description_source TEXT    CHECK (description_source IN ('operator', 'agent', 'catalog')),
  created_at         INTEGER NOT NULL,
  updated_at         INTEGER NOT NULL
);

ALTER TABLE memories ADD COLUMN superseded_by INTEGER;
ALTER TABLE memories ADD COLUMN last_surfaced_at INTEGER;
ALTER TABLE memories ADD COLUMN surface_count INTEGER NOT NULL DEFAULT 0;

-- The history gains the actions of supersession and of the later curation tools, and a link to
-- the other memory involved (the successor of a superseded memory).
CREATE TABLE memory_history_new (
  id                INTEGER PRIMARY KEY AUTOINCREMENT,
  memory_id         INTEGER NOT NULL,
  action            TEXT    NOT NULL CHECK (action IN ('created', 'reinforced', 'decayed',
                      'deactivated', 'edited', 'reactivated', 'pinned', 'unpinned', 'deleted',
                      'superseded', 'archived', 'restored', 'merged', 'imported')),
  old_confidence    REAL,
  new_confidence    REAL,
  observation       TEXT,
  session_id        INTEGER REFERENCES sessions(id) ON DELETE SET NULL,
  created_at        INTEGER NOT NULL,
  related_memory_id INTEGER
);
INSERT INTO memory_history_new (id, memory_id, action, old_confidence, new_confidence, observation,
  session_id, created_at)
  SELECT id, memory_id, action, old_confidence, new_confidence, observation, session_id, created_at
  FROM memory_history;
DROP TABLE memory_history;
ALTER TABLE memory_history_new RENAME TO memory_history;
CREATE INDEX idx_memory_history_memory ON memory_history (memory_id, created_at);

-- Full text over the memory's words, its service, category and the service's description.
-- Kept in step with memories and services by the triggers below, in the same transaction.
CREATE VIRTUAL TABLE memories_fts USING fts5(
  observation, service, category, description,
  tokenize = 'porter unicode61'
);

-- One vector per memory (of its observation alone, so that two memories of one service are
-- compared by what they say), for the model that made it. A memory without a vector for the current
-- model is pending: lexical search finds it until it is embedded. `id` grows with every write so
-- that a process's in-memory index can catch up with `WHERE id > ?`.
CREATE TABLE memory_vectors (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  memory_id  INTEGER NOT NULL UNIQUE,
  model      TEXT    NOT NULL,
  dimension  INTEGER NOT NULL,
  vector     BLOB    NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TRIGGER memories_index_insert AFTER INSERT ON memories BEGIN
  INSERT INTO memories_fts (rowid, observation, service, category, description)
  VALUES (new.id, new.observation, coalesce(new.service, 'general'), new.category,
    coalesce((SELECT description FROM services WHERE name = new.service), ''));
END;

CREATE TRIGGER memories_index_delete AFTER DELETE ON memories BEGIN
  DELETE FROM memories_fts WHERE rowid = old.id;
  DELETE FROM memory_vectors WHERE memory_id = old.id;
END;

CREATE TRIGGER memories_index_update AFTER UPDATE OF observation, service, category ON memories
BEGIN
  DELETE FROM memories_fts WHERE rowid = old.id;
  INSERT INTO memories_fts (rowid, observation, service, category, description)
  VALUES (new.id, new.observation, coalesce(new.service, 'general'), new.category,
    coalesce((SELECT description FROM services WHERE name = new.service), ''));
  -- The embedded text changed: the memory is pending until it is embedded again.
  DELETE FROM memory_vectors WHERE memory_id = new.id AND old.observation IS NOT new.observation;
END;

CREATE TRIGGER services_index_insert AFTER INSERT ON services BEGIN
  UPDATE memories_fts SET description = coalesce(new.description, '')
    WHERE rowid IN (SELECT id FROM memories WHERE service = new.name);
END;

CREATE TRIGGER services_index_update AFTER UPDATE OF description ON services
WHEN old.description IS NOT new.description BEGIN
  UPDATE memories_fts SET description = coalesce(new.description, '')
    WHERE rowid IN (SELECT id FROM memories WHERE service = new.name);
END;

INSERT INTO memories_fts (rowid, observation, service, category, description)
  SELECT id, observation, coalesce(service, 'general'), category, '' FROM memories;

-- What each session was given: at the start (the memory block) and by the in-session hook.
CREATE TABLE session_memories (
  session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  memory_id  INTEGER NOT NULL,
  via        TEXT    NOT NULL CHECK (via IN ('context', 'hook')),
  score      REAL,
  detail_json TEXT,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, memory_id)
);
CREATE INDEX idx_session_memories_memory ON session_memories (memory_id);

CREATE INDEX idx_memories_service_active ON memories (service, active);

-- Pinned memories head every session's block: read from a small partial index, not the table.
CREATE INDEX idx_memories_pinned ON memories (active, confidence DESC, updated_at DESC, id)
  WHERE pinned = 1;
