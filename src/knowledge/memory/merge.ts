/**
 * Merging memories that say the same into one survivor, by the operator (or a tool): the
 * survivor keeps the best of each and the provenance of all, the others are archived and linked.
 */
import type { MemoryRow, MemorySource } from '../../db/index.js';
import { AppError } from '../../errors.js';
import {
  IMPORTANCE_VALUES,
  MAX_NOTE_LENGTH,
  roundConfidence,
  validateConfidence,
  validateObservation,
} from '../../memory/index.js';
import type { MemoryContext } from './context.js';

export interface MergeOutcome {
  survivor: MemoryRow;
  merged: MemoryRow[];
}

/** A merged memory's provenance (source, session, reference) and wording, for the survivor. */
const provenance = (m: MemoryRow) =>
  `merged #${m.id} (${m.source}${m.sessionId === null ? '' : `, session ${m.sessionId}`}${m.sourceRef === null ? '' : `, ${m.sourceRef}`}): ${m.observation}`.slice(
    0,
    MAX_NOTE_LENGTH,
  );

export function createMerging(ctx: MemoryContext) {
  const { memories, embedding, clock, policy, mustGetAwaited } = ctx;
  return {
    /**
     * Merges memories into the first of `ids` (the survivor): it keeps the best confidence of
     * all (or the one given), the highest importance and boost, a pin if any had one, and the
     * operator's wording if given. Every memory involved gets a `merged` history entry: the
     * survivor one per merged memory, with that memory's provenance (source, session, reference)
     * as its evidence, so the union of provenance stays with it; each merged memory is archived,
     * linked to the survivor, its own history kept.
     */
    async merge(
      ids: readonly number[],
      opts: { text?: string | null; confidence?: number; source?: MemorySource } = {},
    ): Promise<MergeOutcome> {
      const unique = [...new Set(ids)];
      if (unique.length < 2) {
        throw new AppError('invalid_input', 'ids: give at least two different memories to merge', {
          data: { field: 'ids' },
        });
      }
      const rows = await Promise.all(unique.map(mustGetAwaited));
      const survivor = rows[0]!;
      const others = rows.slice(1);
      const otherScope = others.find((m) => m.scope !== survivor.scope);
      if (otherScope) {
        throw new AppError(
          'invalid_input',
          `ids: memory ${otherScope.id} is in scope "${otherScope.scope}", memory ${survivor.id} in "${survivor.scope}"; only memories of one scope merge`,
          { data: { field: 'ids' } },
        );
      }
      const text =
        opts.text === undefined || opts.text === null || opts.text.trim() === ''
          ? undefined
          : validateObservation(opts.text);
      const confidence =
        opts.confidence === undefined
          ? Math.max(...rows.map((m) => m.confidence))
          : roundConfidence(validateConfidence(opts.confidence));
      const importance = rows
        .map((m) => m.importance)
        .reduce((a, b) => (IMPORTANCE_VALUES[b] > IMPORTANCE_VALUES[a] ? b : a));
      const boost = Math.min(
        Math.max(...rows.map((m) => m.importanceBoost)),
        Math.max(0, 1 - IMPORTANCE_VALUES[importance]),
      );
      const pinned = rows.some((m) => m.pinned) || importance === 'core';
      const active = confidence >= policy.activeThreshold;
      const source = opts.source ?? 'operator';
      const now = clock.now();
      await memories.changeAwaited([
        ...others.map((m, i) => ({
          id: survivor.id,
          action: 'merged' as const,
          confidence,
          active,
          ...(i === 0 ? { ...ctx.restart(now), pinned, importance, importanceBoost: boost } : {}),
          ...(i === 0 && text !== undefined ? { observation: text } : {}),
          relatedMemoryId: m.id,
          sessionId: m.sessionId,
          source,
          evidence: provenance(m),
          at: now,
        })),
        ...others.map((m) => ({
          id: m.id,
          action: 'merged' as const,
          confidence: m.confidence,
          active: false,
          archive: { reason: `merged into #${survivor.id}` },
          mergedInto: survivor.id,
          relatedMemoryId: survivor.id,
          source,
          evidence: `merged into #${survivor.id}`,
          at: now,
        })),
      ]);
      if (text !== undefined && text !== survivor.observation) {
        const [vector] = (await embedding.documents([text])) ?? [null];
        if ((await mustGetAwaited(survivor.id)).observation === text) {
          await ctx.storeVectorAwaited(survivor.id, vector ?? null);
        }
      }
      const [after, ...merged] = await Promise.all(unique.map(mustGetAwaited));
      return { survivor: after!, merged };
    },
  };
}
