-- search_changes (0003) is read by each process's local text index from its cursor on. Each
-- process records here where it has read to (at its first load of a table, then at most once a
-- minute as it catches up), so that the rows every reader has passed can be deleted; and
-- search_horizon keeps the transaction below which rows were deleted, so that a reader whose
-- cursor is older (it was gone longer than a reader is waited for) loads its tables whole again
-- rather than miss a change.
CREATE TABLE search_readers (
  -- host:pid:random, one per process and connection
  reader  TEXT   COLLATE "C" PRIMARY KEY,
  -- the oldest cursor of its tables
  cursor  xid8   NOT NULL,
  -- epoch ms
  seen_at BIGINT NOT NULL
);

CREATE TABLE search_horizon (
  one    BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
  pruned xid8    NOT NULL
);
INSERT INTO search_horizon (pruned) VALUES ('0');
