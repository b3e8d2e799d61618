-- The dashboard lists memories in this order (active first, most confident, most recently
-- updated); these indexes let it read the first page without sorting the table.
CREATE INDEX idx_memories_list ON memories (active DESC, confidence DESC, updated_at DESC, id);
CREATE INDEX idx_memories_service_list ON memories (service, active DESC, confidence DESC, updated_at DESC, id);
CREATE INDEX idx_memories_category_list ON memories (category, active DESC, confidence DESC, updated_at DESC, id);
