-- Memory portability (issue 14): what `watchkeeper import` and `import-mcp-memory` took in, so
-- that importing the same file again changes nothing; merged memories linked to their survivor;
-- the MCP memory server's entities linked to the memories made from their observations, and its
-- relations between entities (the graph's `relations` table relates ideas only).

-- One row per record imported (a watchkeeper memory or service, an MCP entity, observation or
-- relation), keyed by what the record is, not by where it sat in a file. `target_id` is the row
-- it became or reinforced; not a foreign key, so that deleting that row does not bring the record
-- back on the next import.
CREATE TABLE memory_imports (
  origin      TEXT    NOT NULL CHECK (origin IN ('watchkeeper', 'mcp-memory')),
  key         TEXT    NOT NULL,
  kind        TEXT    NOT NULL CHECK (kind IN ('memory', 'service', 'entity', 'observation',
                'relation')),
  target_id   INTEGER,
  imported_at INTEGER NOT NULL,
  PRIMARY KEY (origin, key)
) WITHOUT ROWID;

-- An import asks for each record whether this memory is already here: same creation time first.
CREATE INDEX idx_memories_created ON memories (created_at);

-- A memory merged into another is archived and points at the one that kept its meaning.
ALTER TABLE memories ADD COLUMN merged_into INTEGER;
CREATE INDEX idx_memories_merged_into ON memories (merged_into) WHERE merged_into IS NOT NULL;

CREATE TABLE memory_entities (
  memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  PRIMARY KEY (memory_id, entity_id)
) WITHOUT ROWID;
CREATE INDEX idx_memory_entities_entity ON memory_entities (entity_id, memory_id);

-- Relations between entities in the MCP server's own words ("works_at", "depends_on"), from
-- the entity named first to the other.
CREATE TABLE entity_relations (
  id            INTEGER PRIMARY KEY,
  from_id       INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  to_id         INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  relation_type TEXT    NOT NULL CHECK (length(relation_type) BETWEEN 1 AND 200),
  created_at    INTEGER NOT NULL,
  UNIQUE (from_id, to_id, relation_type)
);
CREATE INDEX idx_entity_relations_to ON entity_relations (to_id);
