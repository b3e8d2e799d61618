-- Sessions gain the trigger 'chat' (SQLite's 0020_chat_trigger): a message to the
-- OpenAI-compatible chat endpoint (POST /v1/chat/completions) starts a run with the message as
-- its prompt. PostgreSQL changes the constraint in place.
ALTER TABLE sessions DROP CONSTRAINT sessions_trigger_check;
ALTER TABLE sessions ADD CONSTRAINT sessions_trigger_check CHECK (trigger IN
  ('scheduled', 'manual', 'api', 'alert', 'escalation', 'import', 'chat'));
