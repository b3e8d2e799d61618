/**
 * The operator's edits of a memory: its wording and confidence, one change from the dashboard or
 * API (which may also set where it stands), and deletion.
 */
import type { Importance, MemoryRow } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { roundConfidence, validateConfidence, validateObservation } from '../../memory/index.js';
import type { MemoryContext } from './context.js';
import { removeMemories } from './removal.js';
import type { createStanding } from './standing.js';

export interface MemoryPatch {
  observation?: string;
  confidence?: number;
  active?: boolean;
  pinned?: boolean;
  importance?: Importance;
}

export interface MemoryEdit {
  observation?: string;
  confidence?: number;
}

/** Wording and confidence checked and rounded: what an edit may write. */
const validEdit = (edit: MemoryEdit): MemoryEdit => ({
  ...(edit.observation === undefined ? {} : { observation: validateObservation(edit.observation) }),
  ...(edit.confidence === undefined
    ? {}
    : { confidence: roundConfidence(validateConfidence(edit.confidence)) }),
});

export function createEdits(ctx: MemoryContext, standing: ReturnType<typeof createStanding>) {
  const { memories, clock, policy, mustGet } = ctx;

  /** Writes a validated edit; it restarts the decay clock, and below 0.3 deactivates. */
  const writeEdit = (before: MemoryRow, edit: MemoryEdit): void => {
    const confidence = edit.confidence ?? before.confidence;
    const active = before.active && confidence >= policy.activeThreshold;
    const now = clock.now();
    memories.change([
      {
        id: before.id,
        action: active || !before.active ? 'edited' : 'deactivated',
        confidence,
        active,
        ...ctx.restart(now),
        ...(edit.observation === undefined ? {} : { observation: edit.observation }),
        at: now,
      },
    ]);
  };

  return {
    /** Operator edit of wording and/or confidence; restarts the decay clock. */
    edit(id: number, edit: MemoryEdit): MemoryRow {
      writeEdit(mustGet(id), validEdit(edit));
      return mustGet(id);
    },

    /**
     * One change from the dashboard or API: wording and confidence, active, pinned. Everything is
     * validated before anything is written, so a bad field changes nothing.
     */
    update(id: number, patch: MemoryPatch): MemoryRow {
      const before = mustGet(id);
      const edit = validEdit(patch);
      const after = edit.confidence ?? before.confidence;
      if (patch.active === true && after < policy.activeThreshold) {
        throw new AppError(
          'invalid_input',
          `confidence: an active memory needs a confidence of at least ${policy.activeThreshold} (it would be ${after})`,
          { data: { field: 'confidence' } },
        );
      }
      if (edit.observation !== undefined || edit.confidence !== undefined) writeEdit(before, edit);
      if (patch.active === true && !mustGet(id).active) standing.reactivate(id);
      if (patch.active === false) standing.deactivate([id]);
      if (patch.pinned !== undefined) standing.setPinned(id, patch.pinned);
      if (patch.importance !== undefined) standing.setImportance(id, patch.importance);
      return mustGet(id);
    },

    /** Deletes memories, each leaving a tombstone that says who deleted it (see removal.ts). */
    remove(ids: readonly number[], by = 'operator'): number {
      return removeMemories(
        { memories, tombstones: ctx.tombstones, now: () => clock.now() },
        ids,
        by,
      );
    },
  };
}
