/** CSV of memories (RFC 4180 quoting) for a spreadsheet: one row per memory, no history. */
import { isoTime, type PortableMemory } from '../db/index.js';

export const CSV_HEADER = [
  'id',
  'service',
  'category',
  'text',
  'confidence',
  'importance',
  'pinned',
  'active',
  'inactive_reason',
  'archived_at',
  'created_at',
  'updated_at',
  'last_reinforced_at',
  'source',
  'source_ref',
  'session_id',
  'scope',
  'history_entries',
];

function field(value: string | number | boolean | null): string {
  if (value === null) return '';
  const text = String(value);
  // A leading = + - @ would be run as a formula by a spreadsheet: quoted with a tab before it.
  const safe = /^[=+\-@]/.test(text) && typeof value === 'string' ? `\t${text}` : text;
  return /[",\r\n\t]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function csvLine(values: readonly (string | number | boolean | null)[]): string {
  return `${values.map(field).join(',')}\r\n`;
}

export function csvRow(p: PortableMemory, inactiveReason: string | null) {
  const m = p.memory;
  return [
    m.id,
    m.service ?? 'general',
    m.category,
    m.observation,
    m.confidence,
    m.importance,
    m.pinned,
    m.active,
    inactiveReason,
    isoTime(m.archivedAt),
    isoTime(m.createdAt),
    isoTime(m.updatedAt),
    isoTime(m.lastReinforcedAt),
    m.source,
    m.sourceRef,
    m.sessionId,
    m.scope,
    p.history.length,
  ];
}
