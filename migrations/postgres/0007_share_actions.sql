-- A memory's history gains the actions 'shared' and 'unshared' (SQLite's 0021_share_actions): the
-- operator gives a memory to every instance of the fleet, or back to this one. They were recorded
-- as 'edited' with what happened in the evidence; those rows become what they were. PostgreSQL
-- changes the constraint in place.
ALTER TABLE memory_history DROP CONSTRAINT memory_history_action_check;
ALTER TABLE memory_history ADD CONSTRAINT memory_history_action_check CHECK (action IN
  ('created', 'reinforced', 'decayed', 'deactivated', 'edited', 'reactivated', 'pinned',
   'unpinned', 'deleted', 'superseded', 'archived', 'restored', 'merged', 'imported', 'shared',
   'unshared'));
UPDATE memory_history SET action = 'shared'
  WHERE action = 'edited' AND evidence LIKE 'shared with the fleet by instance %';
UPDATE memory_history SET action = 'unshared'
  WHERE action = 'edited' AND evidence LIKE 'unshared: kept by instance %';
