-- A session summary written elsewhere, by where it came from: 'claudeops' for the Go sidecar's
-- own summary (its summarize.go, a model), imported with its session. NULL for watchkeeper's.
ALTER TABLE sessions ADD COLUMN summary_origin TEXT CHECK (summary_origin IN ('claudeops'));

-- Sessions imported before the import wrote the summary kept it only in their import record.
UPDATE sessions SET summary = i.s, summary_source = 'model', summary_status = 'done',
    summary_origin = 'claudeops', summary_at = COALESCE(sessions.ended_at, sessions.started_at)
  FROM (SELECT target_id AS id, json_extract(detail_json, '$.summary') AS s
        FROM claudeops_imports WHERE kind = 'session') AS i
  WHERE i.id = sessions.id AND sessions.summary_status IS NULL AND i.s IS NOT NULL
    AND trim(i.s) <> '';
