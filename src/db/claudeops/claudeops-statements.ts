/**
 * The statements an import of a Claude Ops database writes with: what was imported before
 * (claudeops_imports) and the rows it adds to sessions, events, memories and cooldown actions.
 */
import type { Db } from '../engine.js';

export function importStatements(db: Db) {
  const mapped = db.prepare(
    'SELECT kind, source_id AS sourceId, target_id AS targetId FROM claudeops_imports WHERE source = ?',
  );
  const record = db.prepare(`INSERT INTO claudeops_imports
    (source, kind, source_id, target_id, detail_json, imported_at) VALUES (?, ?, ?, ?, ?, ?)`);
  const insertSession = db.prepare(`INSERT INTO sessions (status, trigger, tier, model, prompt,
    started_at, ended_at, exit_code, cost_usd, num_turns, duration_ms, response, error, simulated,
    summary, summary_source, summary_status, summary_origin, summary_at, instance)
    VALUES (@status, @trigger, @tier, @model, @prompt, @startedAt, @endedAt, @exitCode, @costUsd,
    @numTurns, @durationMs, @response, @error, 0, @summary,
    CASE WHEN CAST(@summary AS TEXT) IS NULL THEN NULL ELSE 'model' END,
    CASE WHEN CAST(@summary AS TEXT) IS NULL THEN NULL ELSE 'done' END,
    CASE WHEN CAST(@summary AS TEXT) IS NULL THEN NULL ELSE 'claudeops' END,
    CASE WHEN CAST(@summary AS TEXT) IS NULL THEN NULL ELSE COALESCE(@endedAt, @startedAt) END, @instance)`);
  const linkParent = db.prepare(
    'UPDATE sessions SET parent_session_id = ? WHERE id = ? AND parent_session_id IS NULL',
  );
  // A session imported earlier may have been pruned since (retention): nothing may point at it.
  const sessionExists = db.prepare('SELECT 1 FROM sessions WHERE id = ?');
  const insertEvent = db.prepare(`INSERT INTO events
    (session_id, source, level, service, message, created_at, instance)
    VALUES (@sessionId, @source, @level, @service, @message, @createdAt, @instance)`);
  const insertMemory = db.prepare(`INSERT INTO memories (service, category, observation,
    confidence, base_confidence, active, pinned, created_at, updated_at, last_reinforced_at,
    session_id, tier, next_decay_at, importance, source, source_ref, scope, instance)
    VALUES (@service, @category, @observation, @confidence, @baseConfidence, @active, 0,
    @createdAt, @updatedAt, @updatedAt, @sessionId, @tier, @nextDecayAt, 'normal', 'import',
    @sourceRef, 'ops', @instance)`);
  const insertHistory = db.prepare(`INSERT INTO memory_history (memory_id, action, old_confidence,
    new_confidence, observation, session_id, created_at, source, evidence)
    VALUES (?, 'imported', NULL, ?, ?, ?, ?, 'import', ?)`);
  const insertCooldown = db.prepare(`INSERT INTO cooldown_actions
    (service, action_type, success, source, command, message, tier, session_id, created_at,
    instance)
    VALUES (@service, @actionType, @success, 'agent', NULL, @message, @tier, @sessionId, @createdAt,
    @instance)`);

  const anyImported = db.prepare('SELECT 1 FROM claudeops_imports LIMIT 1');

  return {
    mapped,
    record,
    insertSession,
    linkParent,
    sessionExists,
    insertEvent,
    insertMemory,
    insertHistory,
    insertCooldown,
    anyImported,
  };
}
