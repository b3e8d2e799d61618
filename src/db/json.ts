/**
 * The stable JSON form of each row, shared by `--json` output and the HTTP API: snake_case
 * field names, times as ISO 8601 strings (null when unset). Documented in README.md.
 */
import type { CooldownBlockRow, CooldownRow } from './cooldowns.js';
import type { EventRow } from './events.js';
import type { HistoryRow, MemoryRow } from './memories.js';
import type { SessionRow } from './sessions.js';

export function isoTime(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

export function sessionJson(s: SessionRow) {
  return {
    id: s.id,
    status: s.status,
    trigger: s.trigger,
    tier: s.tier,
    model: s.model,
    prompt: s.prompt,
    parent_session_id: s.parentSessionId,
    cli_session_id: s.cliSessionId,
    started_at: isoTime(s.startedAt),
    ended_at: isoTime(s.endedAt),
    exit_code: s.exitCode,
    result_subtype: s.resultSubtype,
    is_error: s.isError,
    cost_usd: s.costUsd,
    num_turns: s.numTurns,
    duration_ms: s.durationMs,
    duration_api_ms: s.durationApiMs,
    usage: s.usage,
    response: s.response,
    error: s.error,
    log_path: s.logPath,
    stream_stats: s.streamStats,
    simulated: s.simulated,
  };
}

export function eventJson(e: EventRow) {
  return {
    id: e.id,
    session_id: e.sessionId,
    source: e.source,
    level: e.level,
    service: e.service,
    message: e.message,
    created_at: isoTime(e.createdAt),
  };
}

export function memoryJson(m: MemoryRow) {
  return {
    id: m.id,
    service: m.service,
    category: m.category,
    observation: m.observation,
    confidence: m.confidence,
    active: m.active,
    pinned: m.pinned,
    created_at: isoTime(m.createdAt),
    updated_at: isoTime(m.updatedAt),
    last_reinforced_at: isoTime(m.lastReinforcedAt),
    session_id: m.sessionId,
    tier: m.tier,
  };
}

export function historyJson(h: HistoryRow) {
  return {
    id: h.id,
    memory_id: h.memoryId,
    action: h.action,
    old_confidence: h.oldConfidence,
    new_confidence: h.newConfidence,
    observation: h.observation,
    session_id: h.sessionId,
    created_at: isoTime(h.createdAt),
  };
}

export function cooldownJson(c: CooldownRow) {
  return {
    id: c.id,
    service: c.service,
    action_type: c.actionType,
    success: c.success,
    source: c.source,
    command: c.command,
    message: c.message,
    tier: c.tier,
    session_id: c.sessionId,
    created_at: isoTime(c.createdAt),
  };
}

export function cooldownBlockJson(b: CooldownBlockRow) {
  return {
    id: b.id,
    service: b.service,
    action_type: b.actionType,
    command: b.command,
    reason: b.reason,
    session_id: b.sessionId,
    created_at: isoTime(b.createdAt),
  };
}
