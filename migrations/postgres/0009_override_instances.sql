-- An operator's cooldown reset or allowance applies to the instance it was made on, unless it was
-- declared fleet-wide (SQLite's 0022_override_instances). `instance` names that instance; NULL
-- is fleet-wide, which is what every override made before this migration was.
ALTER TABLE cooldown_overrides ADD COLUMN instance TEXT COLLATE "C";
