-- What each session got and did, beside what it cost.
--
-- system_prompt: the exact text appended to the CLI's system prompt (run context, memory block,
-- cooldown state, handoff, alert), as it was written to the session's input file.
ALTER TABLE sessions ADD COLUMN system_prompt TEXT;

-- A chain's summary (2-5 sentences), kept on the chain's first session: written in the background
-- once the chain ends, through the model gateway ('model'), or the final response's first lines
-- when no model could write it ('final_response'). summary_status is 'pending' while the job
-- runs; summary_error keeps why the model did not write it.
ALTER TABLE sessions ADD COLUMN summary TEXT;
ALTER TABLE sessions ADD COLUMN summary_source TEXT
  CHECK (summary_source IN ('model', 'final_response'));
ALTER TABLE sessions ADD COLUMN summary_status TEXT
  CHECK (summary_status IN ('pending', 'done', 'failed'));
ALTER TABLE sessions ADD COLUMN summary_error TEXT;
ALTER TABLE sessions ADD COLUMN summary_job_id INTEGER;
ALTER TABLE sessions ADD COLUMN summary_at INTEGER;

-- The services a session checked and the health it found, from [HEALTH:status:service] markers
-- or the final response's "Healthy: a, b. Down: c." lines. Deleted with their session.
CREATE TABLE service_checks (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  service    TEXT    NOT NULL,
  health     TEXT    NOT NULL CHECK (health IN ('healthy', 'degraded', 'down', 'unreachable')),
  detail     TEXT,
  source     TEXT    NOT NULL CHECK (source IN ('marker', 'response')),
  created_at INTEGER NOT NULL
);
CREATE INDEX idx_service_checks_service ON service_checks (service, created_at);
CREATE INDEX idx_service_checks_session ON service_checks (session_id);
