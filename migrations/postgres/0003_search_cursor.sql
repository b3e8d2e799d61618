-- Text search on PostgreSQL: each instance keeps a local index of its own (SQLite FTS5 tables in
-- memory, the same as a SQLite store's memories_fts, ideas_fts, spans_fts, events_fts and
-- event_groups_fts, so that matches and bm25 ranks are the same as SQLite's), a cache of the
-- shared rows. This table tells it what to read again: one row per indexed row whose words
-- changed (written, edited or deleted; for a memory, also its service's description), stamped
-- with the id of the transaction that changed it. An instance reads the rows stamped at or after
-- the oldest transaction still running when it last read (pg_snapshot_xmin), so that a
-- transaction that commits late is never missed.
CREATE TABLE search_changes (
  -- The full-text table the row is indexed in: memories_fts, ideas_fts, spans_fts, ...
  source TEXT   COLLATE "C" NOT NULL,
  row_id BIGINT NOT NULL,
  xid    xid8   NOT NULL,
  PRIMARY KEY (source, row_id)
);
CREATE INDEX search_changes_xid ON search_changes (source, xid);

-- Stamps rows as changed by the current transaction.
CREATE FUNCTION wk_search_changed(changed_source text, ids bigint[]) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO search_changes (source, row_id, xid)
    SELECT DISTINCT changed_source, id, pg_current_xact_id() FROM unnest(ids) AS t (id)
    ORDER BY 2
    ON CONFLICT (source, row_id) DO UPDATE SET xid = EXCLUDED.xid
    WHERE search_changes.xid <> EXCLUDED.xid
$$;

-- One statement-level trigger function for every indexed table. Arguments: the full-text table,
-- the column holding the indexed row's id, and (updates) the columns whose words are indexed.
-- The rows come from the transition tables `new_rows` and `old_rows`.
CREATE FUNCTION wk_search_rows_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  source text := TG_ARGV[0];
  id_column text := TG_ARGV[1];
  ids bigint[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    EXECUTE format('SELECT array_agg(%I) FROM new_rows', id_column) INTO ids;
  ELSIF TG_OP = 'DELETE' THEN
    EXECUTE format('SELECT array_agg(%I) FROM old_rows', id_column) INTO ids;
  ELSE
    EXECUTE format('SELECT array_agg(n.%1$I) FROM new_rows n JOIN old_rows o ON o.%1$I = n.%1$I '
      'WHERE (%2$s) IS DISTINCT FROM (%3$s)', id_column,
      (SELECT string_agg('n.' || quote_ident(c), ', ') FROM unnest(TG_ARGV[2:]) AS c),
      (SELECT string_agg('o.' || quote_ident(c), ', ') FROM unnest(TG_ARGV[2:]) AS c))
      INTO ids;
  END IF;
  IF ids IS NOT NULL THEN
    PERFORM wk_search_changed(source, ids);
  END IF;
  RETURN NULL;
END
$$;

-- A service's description is indexed with each of its memories: a changed description changes
-- them all.
CREATE FUNCTION wk_search_services_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  ids bigint[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(m.id) INTO ids FROM memories m JOIN new_rows n ON n.name = m.service;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(m.id) INTO ids FROM memories m JOIN old_rows o ON o.name = m.service;
  ELSE
    SELECT array_agg(m.id) INTO ids FROM memories m
      WHERE m.service IN (SELECT n.name FROM new_rows n JOIN old_rows o ON o.name = n.name
        WHERE n.description IS DISTINCT FROM o.description
        UNION SELECT o.name FROM old_rows o WHERE o.name NOT IN (SELECT name FROM new_rows)
        UNION SELECT n.name FROM new_rows n WHERE n.name NOT IN (SELECT name FROM old_rows));
  END IF;
  IF ids IS NOT NULL THEN
    PERFORM wk_search_changed('memories_fts', ids);
  END IF;
  RETURN NULL;
END
$$;

DO $$
DECLARE
  t record;
BEGIN
  -- table, full-text table, id column, indexed columns
  FOR t IN SELECT * FROM (VALUES
    ('memories', 'memories_fts', 'id', ARRAY['observation', 'service', 'category']),
    ('ideas', 'ideas_fts', 'id', ARRAY['content']),
    ('idea_context', 'ideas_fts', 'idea_id', ARRAY['turn', 'near', 'far']),
    ('spans', 'spans_fts', 'id', ARRAY['name', 'summary']),
    ('events', 'events_fts', 'id', ARRAY['message', 'service']),
    ('event_groups', 'event_groups_fts', 'id', ARRAY['message', 'service'])
  ) AS v (tbl, source, id_column, columns) LOOP
    EXECUTE format('CREATE TRIGGER wk_search_insert AFTER INSERT ON %I '
      'REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT '
      'EXECUTE FUNCTION wk_search_rows_changed(%L, %L)', t.tbl, t.source, t.id_column);
    EXECUTE format('CREATE TRIGGER wk_search_delete AFTER DELETE ON %I '
      'REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT '
      'EXECUTE FUNCTION wk_search_rows_changed(%L, %L)', t.tbl, t.source, t.id_column);
    EXECUTE format('CREATE TRIGGER wk_search_update AFTER UPDATE ON %I '
      'REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT '
      'EXECUTE FUNCTION wk_search_rows_changed(%L, %L, %s)', t.tbl, t.source, t.id_column,
      (SELECT string_agg(quote_literal(c), ', ') FROM unnest(t.columns) AS c));
  END LOOP;
END
$$;

CREATE TRIGGER wk_search_insert AFTER INSERT ON services
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION wk_search_services_changed();
CREATE TRIGGER wk_search_delete AFTER DELETE ON services
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION wk_search_services_changed();
CREATE TRIGGER wk_search_update AFTER UPDATE ON services
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION wk_search_services_changed();
