-- How much memory_reinforce has raised a memory's importance above its level (seed 002: +0.1 a
-- call, the total capped at 1.0). The level (low 0.3, normal 0.5, high 0.7, core 0.9) changes
-- only when someone sets it; at 0.8 or more in all, promotion to core is suggested.
ALTER TABLE memories ADD COLUMN importance_boost REAL NOT NULL DEFAULT 0
  CHECK (importance_boost >= 0 AND importance_boost <= 1);
