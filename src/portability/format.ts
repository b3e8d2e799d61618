/**
 * The export format, `watchkeeper-memory/1`: JSON Lines, a header line first, then one line per
 * service description and one per memory with its history. Times are ISO 8601 in UTC with
 * milliseconds (exact both ways); ids are the exporting database's, and only link lines of the
 * same file (superseded_by, merged_into, a history row's related_memory_id).
 */
import { z } from 'zod';

import {
  HISTORY_ACTIONS,
  type HistoryRow,
  IMPORTANCES,
  isoTime,
  MEMORY_SOURCES,
  type PortableMemory,
} from '../db/index.js';
import { CATEGORIES } from '../memory/index.js';

export const FORMAT = 'watchkeeper-memory/1';

export interface ExportHeader {
  format: typeof FORMAT;
  exported_at: string;
  filter: Record<string, string | boolean | null>;
  memories: number;
  services: number;
}

function historyRecord(h: HistoryRow) {
  return {
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

/** One memory line. `inactiveReason` says why an inactive memory is inactive. */
export function memoryRecord(p: PortableMemory, inactiveReason: string | null) {
  const m = p.memory;
  return {
    type: 'memory' as const,
    id: m.id,
    text: m.observation,
    service: m.service,
    category: m.category,
    scope: m.scope,
    confidence: m.confidence,
    base_confidence: m.baseConfidence,
    importance: m.importance,
    importance_boost: m.importanceBoost,
    pinned: m.pinned,
    active: m.active,
    inactive_reason: inactiveReason,
    archived_at: isoTime(m.archivedAt),
    archive_reason: m.archiveReason,
    superseded_by: m.supersededBy,
    merged_into: m.mergedInto,
    created_at: isoTime(m.createdAt),
    updated_at: isoTime(m.updatedAt),
    last_reinforced_at: isoTime(m.lastReinforcedAt),
    last_surfaced_at: isoTime(m.lastSurfacedAt),
    surface_count: m.surfaceCount,
    last_accessed_at: isoTime(m.lastAccessedAt),
    access_count: m.accessCount,
    provenance: {
      source: m.source,
      source_ref: m.sourceRef,
      session_id: m.sessionId,
      tier: m.tier,
    },
    history: p.history.map(historyRecord),
  };
}

export function serviceRecord(s: {
  name: string;
  description: string;
  descriptionSource: string | null;
}) {
  return {
    type: 'service' as const,
    name: s.name,
    description: s.description,
    description_source: s.descriptionSource,
  };
}

const time = z.iso.datetime({ offset: true }).transform((v) => Date.parse(v));
const nullableTime = time.nullable().default(null);
const id = z.number().int().positive();
const confidence = z.number().min(0).max(1);

const HistoryLine = z.object({
  action: z.enum(HISTORY_ACTIONS),
  old_confidence: confidence.nullable().default(null),
  new_confidence: confidence.nullable().default(null),
  observation: z.string().nullable().default(null),
  session_id: z.number().int().nullable().default(null),
  created_at: time,
  related_memory_id: id.nullable().default(null),
  source: z.enum(MEMORY_SOURCES).nullable().default(null),
  evidence: z.string().nullable().default(null),
});

export const MemoryLine = z.object({
  type: z.literal('memory'),
  id: id.optional(),
  text: z.string().min(1),
  service: z.string().nullable().default(null),
  category: z.enum(CATEGORIES),
  scope: z.string().min(1).max(200).default('ops'),
  confidence,
  base_confidence: confidence.optional(),
  importance: z.enum(IMPORTANCES).default('normal'),
  importance_boost: z.number().min(0).max(1).default(0),
  pinned: z.boolean().default(false),
  active: z.boolean().default(true),
  inactive_reason: z.string().nullable().optional(),
  archived_at: nullableTime,
  archive_reason: z.string().nullable().default(null),
  superseded_by: id.nullable().default(null),
  merged_into: id.nullable().default(null),
  created_at: time,
  updated_at: time.optional(),
  last_reinforced_at: time.optional(),
  last_surfaced_at: nullableTime,
  surface_count: z.number().int().min(0).default(0),
  last_accessed_at: nullableTime,
  access_count: z.number().int().min(0).default(0),
  provenance: z
    .object({
      source: z.enum(MEMORY_SOURCES).default('import'),
      source_ref: z.string().nullable().default(null),
      session_id: z.number().int().nullable().default(null),
      tier: z.number().int().min(0).max(3).default(0),
    })
    .default({ source: 'import', source_ref: null, session_id: null, tier: 0 }),
  history: z.array(HistoryLine).default([]),
});
export type MemoryLine = z.infer<typeof MemoryLine>;

export const ServiceLine = z.object({
  type: z.literal('service'),
  name: z.string().min(1),
  description: z.string(),
  description_source: z.enum(['operator', 'agent', 'catalog']).nullable().default('operator'),
});
export type ServiceLine = z.infer<typeof ServiceLine>;

/** The first problem zod found, as "field: message". */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0]!;
  const path = issue.path.join('.');
  return `${path === '' ? 'line' : path}: ${issue.message}`;
}
