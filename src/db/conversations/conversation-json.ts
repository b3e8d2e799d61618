/**
 * The stable JSON form of conversation memory and gateway rows, for `--json` and the HTTP API:
 * snake_case, times as ISO 8601 strings (null when unset), like json.ts. Documented in README.md.
 */
import type { ConversationListRow, ConversationRow, MessageRow } from './conversations.js';
import type { ConversationMemoryRow, ExtractionWindowRow, GateStats } from './extractions.js';
import type { DayCost, GatewayJobRow } from './gateway-jobs.js';
import { isoTime } from '../json.js';
import type { ScopeRow } from '../memories/scopes.js';
import type { GenerationStats, SummaryHistoryRow, SummaryRow } from './summaries.js';

export function conversationJson(c: ConversationRow) {
  return {
    id: c.id,
    scope: c.scope,
    created_at: isoTime(c.createdAt),
    updated_at: isoTime(c.updatedAt),
    last_seq: c.lastSeq,
    message_count: c.messageCount,
    extracted_through_seq: c.extractedThroughSeq,
    extracted_at: isoTime(c.extractedAt),
  };
}

export function conversationListJson(c: ConversationListRow) {
  return {
    ...conversationJson(c),
    summaries: c.summaries,
    processing: c.processing,
    failed: c.failed,
    latest_window:
      c.latestStartSeq === null ? null : { start_seq: c.latestStartSeq, end_seq: c.latestEndSeq },
    memories: c.memories,
    shared_with_ops: c.sharedWithOps,
  };
}

export function messageJson(m: MessageRow) {
  return { seq: m.seq, role: m.role, content: m.content, created_at: isoTime(m.createdAt) };
}

export function summaryJson(s: SummaryRow | SummaryHistoryRow) {
  return {
    id: s.id,
    conversation_id: s.conversationId,
    status: s.status,
    start_seq: s.startSeq,
    end_seq: s.endSeq,
    window_size: s.endSeq - s.startSeq + 1,
    base_summary_id: s.baseSummaryId,
    ...('baseEndSeq' in s ? { base_end_seq: s.baseEndSeq } : {}),
    text: s.text,
    error: s.error,
    job_id: s.jobId,
    generation_time_ms: s.generationTimeMs,
    created_at: isoTime(s.createdAt),
    finished_at: isoTime(s.finishedAt),
  };
}

export function generationJson(g: GenerationStats) {
  return {
    avg_ms: g.avgMs === null ? null : Math.round(g.avgMs),
    max_ms: g.maxMs,
    total_summaries: g.totalSummaries,
  };
}

export function extractionWindowJson(w: ExtractionWindowRow) {
  return {
    id: w.id,
    start_seq: w.startSeq,
    end_seq: w.endSeq,
    tokens: w.tokens,
    status: w.status,
    worth_remembering: w.worth,
    reason: w.reason,
    gate_job_id: w.gateJobId,
    extract_job_id: w.extractJobId,
    candidates: w.candidates,
    created: w.created,
    reinforced: w.reinforced,
    error: w.error,
    created_at: isoTime(w.createdAt),
  };
}

export function gateStatsJson(g: GateStats) {
  return {
    windows: g.windows,
    worth: g.worth,
    productive: g.productive,
    failed: g.failed,
    precision: g.worth === 0 ? null : g.productive / g.worth,
  };
}

export function conversationMemoryJson(m: ConversationMemoryRow) {
  return {
    memory_id: m.memoryId,
    action: m.action,
    type: m.type,
    importance: m.importance,
    tags: m.tags,
    window_id: m.windowId,
    source_ref: `conversation ${m.conversationId} #${m.startSeq}-${m.endSeq}`,
    observation: m.observation,
    active: m.active,
    created_at: isoTime(m.createdAt),
  };
}

export function scopeJson(s: ScopeRow) {
  return {
    name: s.name,
    shared_with_ops: s.sharedWithOps,
    active_memories: s.activeMemories,
    conversations: s.conversations,
    updated_at: isoTime(s.updatedAt),
  };
}

export function gatewayJobJson(j: GatewayJobRow) {
  return {
    id: j.id,
    kind: j.kind,
    backend: j.backend,
    model: j.model,
    outcome: j.outcome,
    ref: j.ref,
    input_tokens: j.inputTokens,
    output_tokens: j.outputTokens,
    cost_usd: j.costUsd,
    duration_ms: j.durationMs,
    attempts: j.attempts,
    error: j.error,
    created_at: isoTime(j.createdAt),
    finished_at: isoTime(j.finishedAt),
  };
}

export function dayCostJson(d: DayCost) {
  return {
    day: d.day,
    jobs: d.jobs,
    failed: d.failed,
    cost_usd: d.costUsd,
    input_tokens: d.inputTokens,
    output_tokens: d.outputTokens,
  };
}
