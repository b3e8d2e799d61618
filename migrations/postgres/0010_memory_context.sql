-- A memory learned in order with others (a conversation's, an imported file's) is searched with
-- its context (SQLite's 0023_memory_context): the previous and next memory of the same service,
-- scope and source are its near context, the two beyond those its far context. Each instance's local full-text copy reads both with the memory
-- (src/db/postgres/text-sources.ts); a memory written, edited or deleted changes the context of
-- the two memories on each side of it, which every instance must read again.

-- The neighbours of a memory, read back and forth by id.
CREATE INDEX idx_memories_neighbours ON memories (service NULLS FIRST, scope NULLS FIRST,
  source NULLS FIRST, id);

-- The two memories on each side of a position, for the sources whose memories have context. A
-- memory without a service is beside the others without one: each case its own branch, so that
-- both read the index (IS NOT DISTINCT FROM would not).
CREATE FUNCTION wk_memory_neighbours(of_service text, of_scope text, of_source text, at bigint)
RETURNS TABLE (id bigint)
LANGUAGE sql STABLE AS $$
  (SELECT p.id FROM memories p WHERE of_source IN ('conversation', 'import')
    AND p.service = of_service COLLATE "C"
    AND p.scope = of_scope COLLATE "C" AND p.source = of_source COLLATE "C" AND p.id < at
    ORDER BY p.id DESC LIMIT 2)
  UNION ALL
  (SELECT p.id FROM memories p WHERE of_source IN ('conversation', 'import')
    AND p.service = of_service COLLATE "C"
    AND p.scope = of_scope COLLATE "C" AND p.source = of_source COLLATE "C" AND p.id > at
    ORDER BY p.id LIMIT 2)
  UNION ALL
  (SELECT p.id FROM memories p WHERE of_source IN ('conversation', 'import')
    AND of_service IS NULL AND p.service IS NULL
    AND p.scope = of_scope COLLATE "C" AND p.source = of_source COLLATE "C" AND p.id < at
    ORDER BY p.id DESC LIMIT 2)
  UNION ALL
  (SELECT p.id FROM memories p WHERE of_source IN ('conversation', 'import')
    AND of_service IS NULL AND p.service IS NULL
    AND p.scope = of_scope COLLATE "C" AND p.source = of_source COLLATE "C" AND p.id > at
    ORDER BY p.id LIMIT 2)
$$;

-- A memory written or edited is read again by every instance, which reads the memories beside it
-- with it (text-sources.ts): no neighbour is stamped then, so that instances adding memories of
-- one service at once never wait on each other's stamps. A memory deleted, or moved to another
-- service, scope or source (no operation does that today), leaves neighbours that only this
-- stamp tells of.
CREATE FUNCTION wk_memory_context_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  ids bigint[];
BEGIN
  IF TG_OP = 'DELETE' THEN
    SELECT array_agg(n.id) INTO ids FROM old_rows r
      CROSS JOIN LATERAL wk_memory_neighbours(r.service, r.scope, r.source, r.id) n;
  ELSE
    SELECT array_agg(n.id) INTO ids FROM new_rows r JOIN old_rows o ON o.id = r.id
      CROSS JOIN LATERAL wk_memory_neighbours(o.service, o.scope, o.source, o.id) n
      WHERE (r.service, r.scope, r.source) IS DISTINCT FROM (o.service, o.scope, o.source);
  END IF;
  IF ids IS NOT NULL THEN
    PERFORM wk_search_changed('memories_fts', ids);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER wk_memory_context_delete AFTER DELETE ON memories
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION wk_memory_context_changed();
CREATE TRIGGER wk_memory_context_update AFTER UPDATE ON memories
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION wk_memory_context_changed();
