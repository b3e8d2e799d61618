-- `watchkeeper migrate-store`: one row per SQLite store copied into this database, keyed by the
-- instance it was copied as, with each table's id offset (fixed when the copy began: the ids up
-- to it are the target's own), how far the copy has read (`cursor`: the last source key written,
-- as JSON) and the source rows whose key the target already held. Each batch of rows commits
-- with its cursor, so an interrupted copy resumes where it stopped, with the same offsets.
CREATE TABLE store_copies (
  instance    TEXT   COLLATE "C" PRIMARY KEY,
  -- The SQLite file's absolute path when the copy began.
  source      TEXT   COLLATE "C" NOT NULL,
  started_at  BIGINT NOT NULL,
  -- Set once every table is copied.
  finished_at BIGINT
);

CREATE TABLE store_copy_tables (
  instance    TEXT    COLLATE "C" NOT NULL REFERENCES store_copies (instance) ON DELETE CASCADE,
  table_name  TEXT    COLLATE "C" NOT NULL,
  id_offset   BIGINT  NOT NULL DEFAULT 0,
  -- The source's highest id and its row count when the copy began.
  source_max  BIGINT  NOT NULL DEFAULT 0,
  source_rows BIGINT  NOT NULL,
  cursor      TEXT    COLLATE "C",
  copied      BIGINT  NOT NULL DEFAULT 0,
  done        BOOLEAN NOT NULL DEFAULT false,
  PRIMARY KEY (instance, table_name)
);

-- A source row whose key the target already held: kept (the target's row stays), or mapped
-- (references to the source's row point at target_id).
CREATE TABLE store_copy_conflicts (
  instance   TEXT   COLLATE "C" NOT NULL,
  table_name TEXT   COLLATE "C" NOT NULL,
  source_key TEXT   COLLATE "C" NOT NULL,
  target_id  BIGINT,
  PRIMARY KEY (instance, table_name, source_key),
  FOREIGN KEY (instance, table_name) REFERENCES store_copy_tables (instance, table_name)
    ON DELETE CASCADE
);
