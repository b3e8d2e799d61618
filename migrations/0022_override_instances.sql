-- An operator's cooldown reset or allowance applies to the instance it was made on, unless it was
-- declared fleet-wide. `instance` names that instance; NULL is fleet-wide, which is what every
-- override made before this migration was (they applied to every instance).
ALTER TABLE cooldown_overrides ADD COLUMN instance TEXT;
