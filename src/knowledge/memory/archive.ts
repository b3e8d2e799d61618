/**
 * The archive (seed 002): a memory set aside with the date and the reason kept, brought back
 * with `restore`, and why any inactive memory is inactive (the archive scope of memory_query).
 */
import type { HistoryRow, MemoryRow, MemorySource } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { formatConfidence, validateNote } from '../../memory/index.js';
import type { MemoryContext } from './context.js';

/** Why and since when a memory is inactive (the archive scope of memory_query). */
export interface InactiveReason {
  reason: string;
  at: number;
}

export function createArchive(ctx: MemoryContext) {
  const { memories, clock, policy, mustGetAwaited } = ctx;
  return {
    /**
     * Archives a memory (seed 002's archive): inactive, with the date and the reason kept, and
     * back with `restore`. Core memories are never archived.
     */
    async archive(
      id: number,
      reason?: string | null,
      source: MemorySource = 'operator',
    ): Promise<MemoryRow> {
      const before = await mustGetAwaited(id);
      if (before.importance === 'core') {
        throw new AppError(
          'invalid_input',
          `id: memory ${id} is core, and core memories are never archived (lower its importance first)`,
          { data: { field: 'id' } },
        );
      }
      const why = validateNote('reason', reason) ?? 'archived by the operator';
      if (before.archivedAt !== null) return before;
      return ctx.recordAwaited({
        id,
        action: 'archived',
        confidence: before.confidence,
        active: false,
        archive: { reason: why },
        source,
        evidence: why,
        at: clock.now(),
      });
    },

    /**
     * Brings an archived (or otherwise inactive) memory back: active, its decay clock restarted,
     * its confidence at least the active threshold.
     */
    async restore(id: number, source: MemorySource = 'operator'): Promise<MemoryRow> {
      const before = await mustGetAwaited(id);
      if (before.active) {
        throw new AppError(
          'invalid_input',
          `id: memory ${id} is active; there is nothing to restore`,
          { data: { field: 'id' } },
        );
      }
      const now = clock.now();
      return ctx.recordAwaited({
        id,
        action: 'restored',
        confidence: Math.max(before.confidence, policy.activeThreshold),
        active: true,
        ...ctx.restart(now),
        archive: null,
        source,
        at: now,
      });
    },

    /**
     * Why a memory is inactive, and since when: the operator's archive reason, or what its
     * history says (superseded by another memory, decayed below the threshold, deactivated).
     * Null for an active memory. `history`: the memory's, when the caller has read it already.
     */
    inactiveReason(m: MemoryRow, history?: readonly HistoryRow[]): InactiveReason | null {
      if (m.active) return null;
      if (m.archivedAt !== null) {
        return { reason: m.archiveReason ?? 'archived', at: m.archivedAt };
      }
      const last = (history ?? memories.history(m.id)).findLast(
        (h) => h.action === 'superseded' || h.action === 'deactivated',
      );
      if (!last) return { reason: 'inactive', at: m.updatedAt };
      if (last.action === 'superseded') {
        const by =
          last.relatedMemoryId === null ? 'a newer memory' : `memory #${last.relatedMemoryId}`;
        return { reason: `superseded by ${by}, which says otherwise`, at: last.createdAt };
      }
      if (last.newConfidence !== null && last.newConfidence < policy.activeThreshold) {
        return {
          reason: `decayed: confidence fell to ${formatConfidence(last.newConfidence)}, below ${formatConfidence(policy.activeThreshold)}`,
          at: last.createdAt,
        };
      }
      return { reason: 'deactivated by the operator', at: last.createdAt };
    },
  };
}
