/**
 * A deliberate reinforcement of one memory (memory_reinforce): a re-observation that someone
 * judged worth confirming, so it also raises how much the memory matters.
 */
import type { MemoryRow, MemorySource } from '../../db/index.js';
import { AppError } from '../../errors.js';
import {
  IMPORTANCE_STEP,
  IMPORTANCE_VALUES,
  importanceValue,
  suggestsCore,
  validateNote,
} from '../../memory/index.js';
import { reinforcedChange } from './changes.js';
import type { MemoryContext } from './context.js';

/** A deliberate reinforcement (memory_reinforce): what it changed. */
export interface Reinforcement {
  memory: MemoryRow;
  before: MemoryRow;
  /** Importance (level value plus boost) before and after. */
  importanceBefore: number;
  importanceAfter: number;
  /** Importance is at or above 0.8 and the memory is not core: suggest promoting it. */
  suggestCore: boolean;
}

export function createReinforcing(ctx: MemoryContext) {
  const { memories, clock, policy, mustGet } = ctx;
  return {
    /**
     * A deliberate reinforcement of one active memory (memory_reinforce): like a re-observed
     * marker, +0.1 confidence and the decay clock restarted; and, because someone judged it worth
     * confirming, +0.1 importance (capped at 1.0 in all). The evidence and the session are kept
     * in the history row.
     */
    reinforce(
      id: number,
      input: {
        sessionId: number | null;
        source?: MemorySource;
        evidence?: string | null;
        observation?: string | null;
      },
    ): Reinforcement {
      const before = mustGet(id);
      if (!before.active) {
        throw new AppError(
          'invalid_input',
          `id: memory ${id} is inactive; restore it before reinforcing it`,
          { data: { field: 'id' } },
        );
      }
      const evidence = validateNote('new_evidence', input.evidence);
      const now = clock.now();
      const importanceBefore = importanceValue(before.importance, before.importanceBoost);
      const room = Math.max(0, 1 - IMPORTANCE_VALUES[before.importance]);
      const boost =
        Math.round(Math.min(room, before.importanceBoost + IMPORTANCE_STEP) * 100) / 100;
      memories.change([
        reinforcedChange(before, now, policy, {
          historyObservation: input.observation ?? null,
          sessionId: input.sessionId,
          source: input.source ?? 'tool',
          evidence,
          importanceBoost: boost,
        }),
      ]);
      memories.recordAccess([id], now);
      const memory = mustGet(id);
      return {
        memory,
        before,
        importanceBefore,
        importanceAfter: importanceValue(memory.importance, memory.importanceBoost),
        suggestCore: suggestsCore(memory.importance, memory.importanceBoost),
      };
    },
  };
}
