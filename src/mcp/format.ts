/**
 * How a memory reads in a tool answer: a head line (id, category, service, wording) and one line
 * of facts and provenance (relevance, confidence, importance, last reinforced, where it came
 * from). The model gets text it can quote; the structured content carries the same values.
 */
import { type HistoryRow, type MemoryRow, memoryJson } from '../db/index.js';
import { formatConfidence, importanceValue } from '../memory/index.js';

const SOURCE_WORDS: Record<MemoryRow['source'], string> = {
  marker: 'a marker',
  tool: 'a memory tool call',
  operator: 'the operator',
  conversation: 'a conversation',
  import: 'an import',
};

export function when(ms: number, now: number): string {
  const date = new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
  const days = Math.floor(Math.max(0, now - ms) / 86_400_000);
  const hours = Math.floor(Math.max(0, now - ms) / 3_600_000);
  const ago = days >= 1 ? `${days}d ago` : hours >= 1 ? `${hours}h ago` : 'just now';
  return `${date} UTC (${ago})`;
}

export function head(m: MemoryRow): string {
  return `#${m.id} [${m.category}:${m.service ?? 'general'}] ${m.observation}`;
}

export function importanceText(m: MemoryRow): string {
  const value = importanceValue(m.importance, m.importanceBoost);
  return m.importanceBoost > 0 ? `${m.importance} (${value})` : m.importance;
}

/** Where the memory came from, in a few words: source, session and tier, reference. */
export function provenance(m: MemoryRow): string {
  const session =
    m.sessionId === null
      ? m.source === 'tool'
        ? ' (interactive)'
        : ''
      : ` in session #${m.sessionId} (tier ${m.tier})`;
  return `from ${SOURCE_WORDS[m.source]}${session}`;
}

/** How often, and by what, the memory was confirmed since it was written. */
export function confirmations(history: readonly HistoryRow[]): string {
  const counts = new Map<string, number>();
  for (const h of history) {
    if (h.action !== 'reinforced') continue;
    const key = h.source ?? 'unknown';
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  if (counts.size === 0) return 'never reinforced';
  const parts = [...counts].map(([source, n]) => `${n} by ${source}`);
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  return `reinforced ${total}x (${parts.join(', ')})`;
}

/** The facts line: score (when ranked), confidence, importance, last reinforced, provenance. */
export function factsLine(m: MemoryRow, now: number, extra: (string | null)[] = []): string {
  return [
    ...extra,
    `confidence ${formatConfidence(m.confidence)}`,
    `importance ${importanceText(m)}`,
    `last reinforced ${when(m.lastReinforcedAt, now)}`,
    provenance(m),
  ]
    .filter((p): p is string => p !== null)
    .join(' · ');
}

/**
 * A memory in structured content: the fields of the API's JSON form that say what it is, how
 * sure and important, and where it came from (kept short: the model reads it).
 */
export function memoryData(m: MemoryRow, extra: Record<string, unknown> = {}) {
  const j = memoryJson(m);
  return {
    id: j.id,
    service: j.service,
    category: j.category,
    observation: j.observation,
    confidence: j.confidence,
    importance: j.importance,
    importance_value: importanceValue(m.importance, m.importanceBoost),
    active: j.active,
    pinned: j.pinned,
    last_reinforced_at: j.last_reinforced_at,
    source: j.source,
    source_ref: j.source_ref,
    session_id: j.session_id,
    tier: j.tier,
    superseded_by: j.superseded_by,
    archived_at: j.archived_at,
    archive_reason: j.archive_reason,
    ...extra,
  };
}

export function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
