/**
 * The stable JSON form of each row, shared by `--json` output and the HTTP API: snake_case
 * field names, times as ISO 8601 strings (null when unset). Documented in README.md.
 */
import type { CooldownBlockRow, CooldownRow } from './cooldowns/cooldowns.js';
import type { EventRow } from './events/events.js';
import type { ScoreParts } from '../memory/ranking.js';
import { FLEET, type HistoryRow, type MemoryRow } from './memories/memories.js';
import type { ServiceRow } from './memories/services.js';
import type { SessionMemoryRow } from './memories/surfacing.js';
import type { SessionRow } from './sessions/sessions.js';

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
    instance: s.instance,
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
    instance: e.instance,
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
    superseded_by: m.supersededBy,
    last_surfaced_at: isoTime(m.lastSurfacedAt),
    surface_count: m.surfaceCount,
    importance: m.importance,
    importance_boost: m.importanceBoost,
    source: m.source,
    source_ref: m.sourceRef,
    scope: m.scope,
    archived_at: isoTime(m.archivedAt),
    archive_reason: m.archiveReason,
    access_count: m.accessCount,
    last_accessed_at: isoTime(m.lastAccessedAt),
    instance: m.instance,
    shared: m.instance === FLEET,
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
    related_memory_id: h.relatedMemoryId,
    source: h.source,
    evidence: h.evidence,
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
    instance: c.instance,
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

/** A search result: the memory and why it ranked where it did (every score component). */
export function searchResultJson(r: { memory: MemoryRow; why: ScoreParts }) {
  const w = r.why;
  return {
    ...memoryJson(r.memory),
    score: round(w.score),
    why: {
      lexical_rank: w.lexicalRank,
      bm25: w.bm25 === null ? null : round(w.bm25),
      coverage: w.coverage === null ? null : round(w.coverage),
      semantic_rank: w.semanticRank,
      cosine: w.cosine === null ? null : round(w.cosine),
      service_rank: w.serviceRank,
      service_cosine: w.serviceCosine === null ? null : round(w.serviceCosine),
      fused: round(w.fused),
      relevance: round(w.relevance),
      confidence_weight: round(w.confidenceWeight),
      recency_weight: round(w.recencyWeight),
      importance_weight: round(w.importanceWeight),
    },
  };
}

/** A candidate an explained search cut: the result's fields, the reason and its figures. */
export function cutResultJson<R extends string>(r: {
  memory: MemoryRow;
  why: ScoreParts;
  reason: R;
  detail: string;
}) {
  return { ...searchResultJson(r), reason: r.reason, detail: r.detail };
}

function round(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

export function serviceJson(
  s: ServiceRow & { catalog?: { name: string; description: string } | null },
) {
  return {
    name: s.name,
    description: s.description,
    description_source: s.descriptionSource,
    active_memories: s.activeMemories,
    inactive_memories: s.inactiveMemories,
    events: s.events,
    last_event_at: isoTime(s.lastEventAt),
    cooldown_actions: s.cooldownActions,
    catalog: s.catalog ?? null,
  };
}

/** A memory a session was given, at its start (`context`) or by the in-session hook. */
export function sessionMemoryJson(m: SessionMemoryRow) {
  return {
    memory_id: m.memoryId,
    via: m.via,
    score: m.score,
    detail: m.detail,
    service: m.service,
    category: m.category,
    observation: m.observation,
    created_at: isoTime(m.createdAt),
  };
}
