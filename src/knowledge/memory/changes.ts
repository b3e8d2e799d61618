/**
 * The changes a re-observation writes, one shape each whoever writes it (an observation, an
 * import that judged first, a deliberate memory_reinforce).
 */
import type { MemoryChange, MemoryRow, MemorySource } from '../../db/index.js';
import { type MemoryPolicy, nextDecayAt, reinforcedConfidence } from '../../memory/index.js';

/** A change that restarts the decay clock at `now` schedules the first step from there. */
export function restartAt(now: number, policy: MemoryPolicy) {
  return { resetBase: true, nextDecayAt: nextDecayAt(now, now, policy) };
}

/**
 * +confidence (counted again from the row inside the transaction, so two instances reinforcing
 * at once both count), active, and the decay clock restarted at `now`.
 */
export function reinforcedChange(
  before: MemoryRow,
  now: number,
  policy: MemoryPolicy,
  fields: Omit<Partial<MemoryChange>, 'id' | 'action' | 'at'>,
): MemoryChange {
  return {
    id: before.id,
    action: 'reinforced',
    confidence: reinforcedConfidence(before.confidence, policy),
    confidenceOf: (current) => reinforcedConfidence(current.confidence, policy),
    active: true,
    ...restartAt(now, policy),
    ...fields,
    at: now,
  };
}

/** Deactivates `old` in favour of a newer memory that says otherwise, linked to it. */
export function supersededChange(
  old: MemoryRow,
  by: {
    id: number;
    observation: string;
    source: MemorySource;
    evidence?: string | null;
    sessionId?: number | null;
  },
  now: number,
): MemoryChange {
  return {
    id: old.id,
    action: 'superseded',
    confidence: old.confidence,
    active: false,
    historyObservation: by.observation,
    ...(by.sessionId === undefined ? {} : { sessionId: by.sessionId }),
    relatedMemoryId: by.id,
    source: by.source,
    evidence: by.evidence ?? null,
    at: now,
  };
}
