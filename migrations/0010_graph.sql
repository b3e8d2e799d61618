-- The memory graph (seed 004): transcripts indexed into a tree of topic spans with summaries,
-- atomic ideas with intent, confidence and entities, and the relations between ideas. Times are
-- epoch milliseconds like everywhere else; `created_at` of a span or an idea is when it was said
-- (the transcript's timestamp), not when it was indexed.

-- One row per conversation indexed: a Claude Code session (its CLI session id), a subagent of one
-- (marked, with the session that spawned it) or a watchkeeper session log (`wk-<id>`).
CREATE TABLE graph_sessions (
  session                TEXT    PRIMARY KEY,
  kind                   TEXT    NOT NULL CHECK (kind IN ('claude-code', 'subagent', 'watchkeeper')),
  parent_session         TEXT,
  project                TEXT,
  title                  TEXT,
  watchkeeper_session_id INTEGER,
  first_at               INTEGER,
  last_at                INTEGER
);
CREATE INDEX idx_graph_sessions_last ON graph_sessions (last_at DESC);
CREATE INDEX idx_graph_sessions_wk ON graph_sessions (watchkeeper_session_id);

-- Seed 004's index state, per transcript file: how far it was read (bytes and lines; a truncated
-- last line is left for the next run), the file's identity when it was read (device, inode, size,
-- mtime and a hash of its head: a file rotated or rewritten in place is read again from the
-- start), the pipeline's carry-over between runs (the open spans and the recent window) and when.
CREATE TABLE index_state (
  file_path    TEXT    PRIMARY KEY,
  session      TEXT    NOT NULL,
  byte_offset  INTEGER NOT NULL DEFAULT 0,
  last_line    INTEGER NOT NULL DEFAULT 0,
  file_dev     INTEGER,
  file_ino     INTEGER,
  file_size    INTEGER,
  file_mtime   INTEGER,
  head_hash    TEXT,
  carry_json   TEXT,
  last_indexed INTEGER NOT NULL
);

-- Seed 004 section 3.1: the tree of spans per session (depth 0 a topic, depth 1 a sub-span),
-- with the lines of the source file they cover. An open span has no end_line yet.
CREATE TABLE spans (
  id          INTEGER PRIMARY KEY,
  session     TEXT    NOT NULL,
  parent_id   INTEGER REFERENCES spans(id) ON DELETE CASCADE,
  name        TEXT    NOT NULL,
  summary     TEXT,
  source_file TEXT    NOT NULL,
  start_line  INTEGER NOT NULL,
  end_line    INTEGER,
  depth       INTEGER NOT NULL DEFAULT 0,
  created_at  INTEGER NOT NULL,
  ended_at    INTEGER
);
CREATE INDEX idx_spans_session ON spans (session, start_line);
CREATE INDEX idx_spans_parent ON spans (parent_id);
CREATE INDEX idx_spans_file ON spans (source_file);

-- Seed 004 section 3.2: atomic ideas. `answered` is set for questions (0 open, 1 answered) and
-- null otherwise; `role` says who said it (the user or the model).
CREATE TABLE ideas (
  id          INTEGER PRIMARY KEY,
  span_id     INTEGER REFERENCES spans(id) ON DELETE CASCADE,
  session     TEXT    NOT NULL,
  content     TEXT    NOT NULL,
  intent      TEXT    NOT NULL CHECK (intent IN ('decision', 'conclusion', 'question', 'problem',
                'solution', 'todo', 'context')),
  confidence  REAL    NOT NULL DEFAULT 0.5 CHECK (confidence >= 0 AND confidence <= 1),
  answered    INTEGER CHECK (answered IN (0, 1)),
  role        TEXT    NOT NULL CHECK (role IN ('user', 'assistant')),
  source_file TEXT    NOT NULL,
  source_line INTEGER NOT NULL,
  created_at  INTEGER NOT NULL
);
CREATE INDEX idx_ideas_span ON ideas (span_id);
CREATE INDEX idx_ideas_intent ON ideas (intent, created_at);
CREATE INDEX idx_ideas_session ON ideas (session, source_line);
CREATE INDEX idx_ideas_created ON ideas (created_at);
CREATE INDEX idx_ideas_file ON ideas (source_file);

-- Seed 004 section 3.3: entities, one per name and type whatever the case; every spelling seen
-- (an alias such as "Postgres" for PostgreSQL) points at its entity.
CREATE TABLE entities (
  id   INTEGER PRIMARY KEY,
  name TEXT NOT NULL COLLATE NOCASE,
  type TEXT NOT NULL CHECK (type IN ('project', 'technology', 'concept', 'person', 'file')),
  UNIQUE (name, type)
);
CREATE INDEX idx_entities_name ON entities (name);

CREATE TABLE entity_aliases (
  alias     TEXT    NOT NULL COLLATE NOCASE,
  entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  PRIMARY KEY (alias, entity_id)
) WITHOUT ROWID;
CREATE INDEX idx_entity_aliases_entity ON entity_aliases (entity_id);

CREATE TABLE idea_entities (
  idea_id   INTEGER NOT NULL REFERENCES ideas(id) ON DELETE CASCADE,
  entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  PRIMARY KEY (idea_id, entity_id)
) WITHOUT ROWID;
CREATE INDEX idx_idea_entities_entity ON idea_entities (entity_id, idea_id);

-- Seed 004 section 3.4: edges between ideas, the newer idea first (from supersedes to).
CREATE TABLE relations (
  id            INTEGER PRIMARY KEY,
  from_id       INTEGER NOT NULL REFERENCES ideas(id) ON DELETE CASCADE,
  to_id         INTEGER NOT NULL REFERENCES ideas(id) ON DELETE CASCADE,
  relation_type TEXT    NOT NULL CHECK (relation_type IN ('supersedes', 'builds_on', 'contradicts',
                  'answers', 'relates_to')),
  created_at    INTEGER NOT NULL,
  UNIQUE (from_id, to_id, relation_type)
);
CREATE INDEX idx_relations_from ON relations (from_id);
CREATE INDEX idx_relations_to ON relations (to_id);

-- Seed 004 section 3.6: full text over ideas and spans, kept in step by triggers. An idea is
-- also found by the words around it (key expansion): its whole turn, the turns right before and
-- after it (near) and the ones two away (far), weighted less; the indexer fills these columns.
CREATE VIRTUAL TABLE ideas_fts USING fts5(content, turn, near, far, tokenize = 'porter unicode61');
CREATE VIRTUAL TABLE spans_fts USING fts5(name, summary, tokenize = 'porter unicode61');

-- Seed 004 section 3.5, in the semantic-recall issue's form (see memory_vectors): one vector per
-- idea and per span summary, recorded with the model that made it; `id` grows with every write so
-- that a process's in-memory index catches up with `WHERE id > ?`.
CREATE TABLE idea_vectors (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  idea_id    INTEGER NOT NULL UNIQUE,
  model      TEXT    NOT NULL,
  dimension  INTEGER NOT NULL,
  vector     BLOB    NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE span_vectors (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  span_id    INTEGER NOT NULL UNIQUE,
  model      TEXT    NOT NULL,
  dimension  INTEGER NOT NULL,
  vector     BLOB    NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TRIGGER ideas_index_insert AFTER INSERT ON ideas BEGIN
  INSERT INTO ideas_fts (rowid, content, turn, near, far) VALUES (new.id, new.content, '', '', '');
END;
CREATE TRIGGER ideas_index_delete AFTER DELETE ON ideas BEGIN
  DELETE FROM ideas_fts WHERE rowid = old.id;
  DELETE FROM idea_vectors WHERE idea_id = old.id;
END;
CREATE TRIGGER ideas_index_update AFTER UPDATE OF content ON ideas BEGIN
  UPDATE ideas_fts SET content = new.content WHERE rowid = new.id;
  DELETE FROM idea_vectors WHERE idea_id = new.id;
END;

CREATE TRIGGER spans_index_insert AFTER INSERT ON spans BEGIN
  INSERT INTO spans_fts (rowid, name, summary) VALUES (new.id, new.name, coalesce(new.summary, ''));
END;
CREATE TRIGGER spans_index_delete AFTER DELETE ON spans BEGIN
  DELETE FROM spans_fts WHERE rowid = old.id;
  DELETE FROM span_vectors WHERE span_id = old.id;
END;
CREATE TRIGGER spans_index_update AFTER UPDATE OF name, summary ON spans BEGIN
  DELETE FROM spans_fts WHERE rowid = old.id;
  INSERT INTO spans_fts (rowid, name, summary) VALUES (new.id, new.name, coalesce(new.summary, ''));
  -- The embedded text (name and summary) changed: the span is embedded again.
  DELETE FROM span_vectors WHERE span_id = new.id;
END;
