/**
 * Writes an imported record back with every field it was exported with (confidence, dates,
 * history, provenance), so that an export imported into an empty store exports the same; its
 * vector stored when one was computed. Links to other records are set once the whole file is in.
 */
import type { PortabilityStore, SearchStore } from '../db/index.js';
import type { Embedding, MemoryService } from '../knowledge/index.js';
import { type MemoryPolicy, nextDecayAt, toBlob } from '../memory/index.js';
import type { MemoryLine } from './format.js';

export interface RecordToWrite {
  n: number;
  record: MemoryLine;
  service: string | null;
  text: string;
}

export function writeRecord(
  deps: {
    portability: PortabilityStore;
    search: SearchStore;
    embedding: Embedding;
    memory: Pick<MemoryService, 'instanceFor'>;
    policy: MemoryPolicy;
  },
  p: RecordToWrite,
  vector: Float32Array | null,
  now: number,
): { id: number; historyIds: number[]; history: MemoryLine['history'] } {
  const r = p.record;
  const lastReinforcedAt = r.last_reinforced_at ?? r.created_at;
  const history: MemoryLine['history'] =
    r.history.length > 0
      ? r.history
      : [
          {
            action: 'imported' as const,
            old_confidence: null,
            new_confidence: r.confidence,
            observation: p.text,
            session_id: null,
            created_at: now,
            source: 'import' as const,
            evidence: `imported line ${p.n}`,
            related_memory_id: null,
          },
        ];
  const written = deps.portability.insertMemory({
    service: p.service,
    category: r.category,
    observation: p.text,
    confidence: r.confidence,
    baseConfidence: r.base_confidence ?? r.confidence,
    active: r.active,
    pinned: r.pinned,
    createdAt: r.created_at,
    updatedAt: r.updated_at ?? r.created_at,
    lastReinforcedAt,
    tier: r.provenance.tier,
    lastSurfacedAt: r.last_surfaced_at,
    surfaceCount: r.surface_count,
    importance: r.importance,
    importanceBoost: r.importance_boost,
    source: r.provenance.source,
    sourceRef: r.provenance.source_ref,
    scope: r.scope,
    // Whoever imports it learned it (or the fleet, by a share rule).
    instance: deps.memory.instanceFor(p.service, r.category),
    archivedAt: r.archived_at,
    archiveReason: r.archive_reason,
    accessCount: r.access_count,
    lastAccessedAt: r.last_accessed_at,
    nextDecayAt: nextDecayAt(lastReinforcedAt, now, deps.policy),
    history: history.map((h) => ({
      action: h.action,
      oldConfidence: h.old_confidence,
      newConfidence: h.new_confidence,
      observation: h.observation,
      createdAt: h.created_at,
      source: h.source,
      evidence: h.evidence,
    })),
  });
  if (vector && deps.embedding.model) {
    deps.search.putVectors(
      [{ memoryId: written.id, vector: toBlob(vector) }],
      deps.embedding.model,
      vector.length,
      now,
    );
  }
  return { ...written, history };
}
