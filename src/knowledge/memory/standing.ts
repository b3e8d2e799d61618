/**
 * The operator's curation of where a memory stands: pinned or not, active or not, and how much
 * it matters. Core memories stay pinned.
 */
import type { Importance, MemoryRow, MemorySource } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { roundConfidence, validateConfidence } from '../../memory/index.js';
import type { MemoryContext } from './context.js';

export function createStanding(ctx: MemoryContext) {
  const { memories, clock, policy, mustGetAwaited } = ctx;
  return {
    async setPinned(id: number, pinned: boolean): Promise<MemoryRow> {
      const before = await mustGetAwaited(id);
      if (before.pinned === pinned) return before;
      if (!pinned && before.importance === 'core') {
        throw new AppError(
          'invalid_input',
          `pinned: memory ${id} is core, and core memories stay pinned (lower its importance first)`,
          { data: { field: 'pinned' } },
        );
      }
      const now = clock.now();
      return ctx.recordAwaited({
        id,
        action: pinned ? 'pinned' : 'unpinned',
        confidence: before.confidence,
        active: before.active,
        pinned,
        // Unpinning restarts the decay clock; otherwise months pinned would decay at once.
        ...(pinned ? {} : ctx.restart(now)),
        at: now,
      });
    },

    async deactivate(ids: readonly number[]): Promise<number> {
      const now = clock.now();
      const rows = (await memories.getManyAwaited(ids)).filter((m) => m.active);
      return memories.changeAwaited(
        rows.map((m) => ({
          id: m.id,
          action: 'deactivated' as const,
          confidence: m.confidence,
          active: false,
          at: now,
        })),
      );
    },

    /** Makes an inactive memory active again; its confidence (given or current) must be >= 0.3. */
    async reactivate(id: number, confidence?: number): Promise<MemoryRow> {
      const before = await mustGetAwaited(id);
      const next =
        confidence === undefined
          ? before.confidence
          : roundConfidence(validateConfidence(confidence));
      if (next < policy.activeThreshold) {
        throw new AppError(
          'invalid_input',
          `confidence: reactivating needs a confidence of at least ${policy.activeThreshold} (it is ${next})`,
          { data: { field: 'confidence' } },
        );
      }
      if (before.active && next === before.confidence) return before;
      const now = clock.now();
      return ctx.recordAwaited({
        id,
        action: 'reactivated',
        confidence: next,
        active: true,
        ...ctx.restart(now),
        at: now,
      });
    },

    /**
     * Sets how much a memory matters. Core memories are pinned (never decayed or archived); a
     * new level starts without the boost of earlier reinforcements.
     */
    async setImportance(
      id: number,
      importance: Importance,
      source: MemorySource = 'operator',
    ): Promise<MemoryRow> {
      const before = await mustGetAwaited(id);
      if (before.importance === importance) return before;
      return ctx.recordAwaited({
        id,
        action: 'edited',
        confidence: before.confidence,
        active: before.active,
        importance,
        importanceBoost: 0,
        ...(importance === 'core' ? { pinned: true } : {}),
        source,
        evidence: `importance ${before.importance} -> ${importance}`,
        at: clock.now(),
      });
    },
  };
}
