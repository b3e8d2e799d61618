-- The Events page and API filter by source. Every other filter has an index that also gives the
-- newest-first order; without this one, source = 'system' (rare next to the agent's events) reads
-- the whole table to fill a page.
CREATE INDEX idx_events_source ON events (source, created_at);
