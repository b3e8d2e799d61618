-- A memory learned in order with others (the turns of a conversation, the records of an imported
-- file) is searched with its context, as the memory graph searches a turn with the turns around
-- it: what was learned right before and after it (the previous and next memory of the same
-- service, scope and source) is its near context, the two beyond those its far context. A
-- question's answer is often said next to the words the question uses ("what did she paint?"
-- matches the question, "a sunset" is the reply). Markers, tool calls and the operator's own
-- memories are facts learned one at a time: they have none. memories_fts gains the two columns,
-- which bm25() weighs below a memory's own words (src/db/memories/search.ts).

-- The neighbours of a memory, read back and forth by id.
CREATE INDEX idx_memories_neighbours ON memories (service, scope, source, id);

-- Each memory's near and far context (none for a memory learned on its own, or alone in its
-- service).
CREATE VIEW memory_context AS
SELECT m.id,
  CASE WHEN m.source IN ('conversation', 'import') THEN
    trim(coalesce((SELECT p.observation FROM memories p WHERE p.service IS m.service
      AND p.scope = m.scope AND p.source = m.source AND p.id < m.id ORDER BY p.id DESC LIMIT 1), '')
    || ' ' ||
    coalesce((SELECT p.observation FROM memories p WHERE p.service IS m.service
      AND p.scope = m.scope AND p.source = m.source AND p.id > m.id ORDER BY p.id LIMIT 1), ''))
    ELSE '' END AS near,
  CASE WHEN m.source IN ('conversation', 'import') THEN
    trim(coalesce((SELECT p.observation FROM memories p WHERE p.service IS m.service
      AND p.scope = m.scope AND p.source = m.source AND p.id < m.id
      ORDER BY p.id DESC LIMIT 1 OFFSET 1), '')
    || ' ' ||
    coalesce((SELECT p.observation FROM memories p WHERE p.service IS m.service
      AND p.scope = m.scope AND p.source = m.source AND p.id > m.id
      ORDER BY p.id LIMIT 1 OFFSET 1), ''))
    ELSE '' END AS far
FROM memories m;

DROP TRIGGER memories_index_insert;
DROP TRIGGER memories_index_delete;
DROP TRIGGER memories_index_update;
DROP TRIGGER services_index_insert;
DROP TRIGGER services_index_update;
DROP TABLE memories_fts;

CREATE VIRTUAL TABLE memories_fts USING fts5(
  observation, service, category, description, near, far,
  tokenize = 'porter unicode61'
);

INSERT INTO memories_fts (rowid, observation, service, category, description, near, far)
  SELECT m.id, m.observation, coalesce(m.service, 'general'), m.category,
    coalesce(s.description, ''), c.near, c.far
  FROM memories m JOIN memory_context c ON c.id = m.id LEFT JOIN services s ON s.name = m.service;

-- A memory's row, and the context of the two memories on each side of it, which hold its words.
CREATE TRIGGER memories_index_insert AFTER INSERT ON memories BEGIN
  INSERT INTO memories_fts (rowid, observation, service, category, description, near, far)
  SELECT new.id, new.observation, coalesce(new.service, 'general'), new.category,
    coalesce((SELECT description FROM services WHERE name = new.service), ''), c.near, c.far
  FROM memory_context c WHERE c.id = new.id;
  UPDATE memories_fts SET
    near = (SELECT c.near FROM memory_context c WHERE c.id = memories_fts.rowid),
    far = (SELECT c.far FROM memory_context c WHERE c.id = memories_fts.rowid)
  WHERE new.source IN ('conversation', 'import') AND rowid IN (
    SELECT id FROM (SELECT p.id FROM memories p WHERE p.service IS new.service
      AND p.scope = new.scope AND p.source = new.source AND p.id < new.id
      ORDER BY p.id DESC LIMIT 2)
    UNION ALL
    SELECT id FROM (SELECT p.id FROM memories p WHERE p.service IS new.service
      AND p.scope = new.scope AND p.source = new.source AND p.id > new.id
      ORDER BY p.id LIMIT 2));
END;

CREATE TRIGGER memories_index_delete AFTER DELETE ON memories BEGIN
  DELETE FROM memories_fts WHERE rowid = old.id;
  DELETE FROM memory_vectors WHERE memory_id = old.id;
  UPDATE memories_fts SET
    near = (SELECT c.near FROM memory_context c WHERE c.id = memories_fts.rowid),
    far = (SELECT c.far FROM memory_context c WHERE c.id = memories_fts.rowid)
  WHERE old.source IN ('conversation', 'import') AND rowid IN (
    SELECT id FROM (SELECT p.id FROM memories p WHERE p.service IS old.service
      AND p.scope = old.scope AND p.source = old.source AND p.id < old.id
      ORDER BY p.id DESC LIMIT 2)
    UNION ALL
    SELECT id FROM (SELECT p.id FROM memories p WHERE p.service IS old.service
      AND p.scope = old.scope AND p.source = old.source AND p.id > old.id
      ORDER BY p.id LIMIT 2));
END;

-- Only when the words changed: a reinforcement writes the observation column unchanged.
CREATE TRIGGER memories_index_update AFTER UPDATE OF observation, service, category, scope
ON memories WHEN old.observation IS NOT new.observation OR old.service IS NOT new.service
  OR old.category IS NOT new.category OR old.scope IS NOT new.scope
BEGIN
  DELETE FROM memories_fts WHERE rowid = old.id;
  INSERT INTO memories_fts (rowid, observation, service, category, description, near, far)
  SELECT new.id, new.observation, coalesce(new.service, 'general'), new.category,
    coalesce((SELECT description FROM services WHERE name = new.service), ''), c.near, c.far
  FROM memory_context c WHERE c.id = new.id;
  -- The embedded text changed: the memory is pending until it is embedded again.
  DELETE FROM memory_vectors WHERE memory_id = new.id AND old.observation IS NOT new.observation;
  -- Its neighbours where it was and where it is now.
  UPDATE memories_fts SET
    near = (SELECT c.near FROM memory_context c WHERE c.id = memories_fts.rowid),
    far = (SELECT c.far FROM memory_context c WHERE c.id = memories_fts.rowid)
  WHERE (old.source IN ('conversation', 'import') OR new.source IN ('conversation', 'import'))
    AND rowid IN (
    SELECT id FROM (SELECT p.id FROM memories p WHERE p.service IS old.service
      AND p.scope = old.scope AND p.source = old.source AND p.id < old.id
      ORDER BY p.id DESC LIMIT 2)
    UNION ALL
    SELECT id FROM (SELECT p.id FROM memories p WHERE p.service IS old.service
      AND p.scope = old.scope AND p.source = old.source AND p.id > old.id
      ORDER BY p.id LIMIT 2)
    UNION ALL
    SELECT id FROM (SELECT p.id FROM memories p WHERE p.service IS new.service
      AND p.scope = new.scope AND p.source = new.source AND p.id < new.id
      ORDER BY p.id DESC LIMIT 2)
    UNION ALL
    SELECT id FROM (SELECT p.id FROM memories p WHERE p.service IS new.service
      AND p.scope = new.scope AND p.source = new.source AND p.id > new.id
      ORDER BY p.id LIMIT 2));
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
