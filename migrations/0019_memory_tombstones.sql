-- What was deleted here, so that an import of an export taken before the deletion does not bring
-- the memory back. One row per wording the memory had (the one it was deleted with, and earlier
-- ones its history kept): `content_hash` is the sha256 an import computes for a record (scope,
-- service, category, words and creation time; src/memory/identity.ts). `memory_id` is the
-- deleted row's id, not a foreign key (the row is gone). Never pruned: a tombstone is small and
-- its memory may come back in any old file.
CREATE TABLE memory_tombstones (
  id           INTEGER PRIMARY KEY,
  memory_id    INTEGER NOT NULL,
  content_hash TEXT    NOT NULL CHECK (length(content_hash) = 64),
  deleted_at   INTEGER NOT NULL,
  -- Who deleted it: the signed-in user, the API token, the CLI's user.
  deleted_by   TEXT    NOT NULL,
  -- The deleted memory's instance (or 'fleet'): an instance heeds its own and the fleet's.
  instance     TEXT    NOT NULL DEFAULT 'local'
);
CREATE INDEX idx_memory_tombstones_hash ON memory_tombstones (content_hash);
