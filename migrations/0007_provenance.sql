-- Where each memory came from and how much it matters (seed 002), its archive state, how often
-- it was read, and the scope it belongs to (seed 000: conversation memories are shared with the
-- ops sessions only when the operator says so).

-- How much it matters (seed 002: low 0.3, normal 0.5, high 0.7, core 0.9), beside confidence
-- (how sure we are that it is true). Core memories are pinned: never decayed or archived.
ALTER TABLE memories ADD COLUMN importance TEXT NOT NULL DEFAULT 'normal'
  CHECK (importance IN ('low', 'normal', 'high', 'core'));
-- What wrote it first: an agent's marker, a memory tool call, the operator, an extraction from a
-- conversation, or an import; source_ref says which (a tool call id, "conversation c42 #10-24").
ALTER TABLE memories ADD COLUMN source TEXT NOT NULL DEFAULT 'marker'
  CHECK (source IN ('marker', 'tool', 'operator', 'conversation', 'import'));
ALTER TABLE memories ADD COLUMN source_ref TEXT;
-- 'ops' for the operational memory of scheduled sessions; another name for a conversation scope.
ALTER TABLE memories ADD COLUMN scope TEXT NOT NULL DEFAULT 'ops';
-- Archived by the operator, or by decay/supersession: why and when (seed 002's archive).
ALTER TABLE memories ADD COLUMN archived_at INTEGER;
ALTER TABLE memories ADD COLUMN archive_reason TEXT;
-- Read by a memory tool (seed 002 step 4).
ALTER TABLE memories ADD COLUMN access_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE memories ADD COLUMN last_accessed_at INTEGER;

UPDATE memories SET source = 'operator' WHERE tier = 0;

-- Each change records what made it and the evidence given with it (a tool's new_evidence).
ALTER TABLE memory_history ADD COLUMN source TEXT;
ALTER TABLE memory_history ADD COLUMN evidence TEXT;

CREATE INDEX idx_memories_scope ON memories (scope, active);
