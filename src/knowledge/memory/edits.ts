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
  const { memories, clock, policy, mustGetAwaited } = ctx;

  /** Writes a validated edit; it restarts the decay clock, and below 0.3 deactivates. */
  const writeEdit = async (before: MemoryRow, edit: MemoryEdit): Promise<void> => {
    const confidence = edit.confidence ?? before.confidence;
    const active = before.active && confidence >= policy.activeThreshold;
    const now = clock.now();
    await memories.changeAwaited([
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
    async edit(id: number, edit: MemoryEdit): Promise<MemoryRow> {
      const valid = validEdit(edit);
      await writeEdit(await mustGetAwaited(id), valid);
      return mustGetAwaited(id);
    },

    /**
     * One change from the dashboard or API: wording and confidence, active, pinned. Everything is
     * validated before anything is written, so a bad field changes nothing.
     */
    async update(id: number, patch: MemoryPatch): Promise<MemoryRow> {
      const before = await mustGetAwaited(id);
      const edit = validEdit(patch);
      const after = edit.confidence ?? before.confidence;
      if (patch.active === true && after < policy.activeThreshold) {
        throw new AppError(
          'invalid_input',
          `confidence: an active memory needs a confidence of at least ${policy.activeThreshold} (it would be ${after})`,
          { data: { field: 'confidence' } },
        );
      }
      if (edit.observation !== undefined || edit.confidence !== undefined) {
        await writeEdit(before, edit);
      }
      if (patch.active === true && !(await mustGetAwaited(id)).active) {
        await standing.reactivate(id);
      }
      if (patch.active === false) await standing.deactivate([id]);
      if (patch.pinned !== undefined) await standing.setPinned(id, patch.pinned);
      if (patch.importance !== undefined) await standing.setImportance(id, patch.importance);
      return mustGetAwaited(id);
    },

    /** Deletes memories, each leaving a tombstone that says who deleted it (see removal.ts). */
    remove(ids: readonly number[], by = 'operator'): Promise<number> {
      return removeMemories(
        { memories, tombstones: ctx.tombstones, now: () => clock.now() },
        ids,
        by,
      );
    },
  };
}
