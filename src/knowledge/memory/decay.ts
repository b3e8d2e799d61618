/**
 * Decay: every memory's confidence brought up to date from its timestamps, so running it twice
 * for the same `now` changes nothing.
 */
import { applyDecay, nextDecayAt } from '../../memory/index.js';
import type { MemoryContext } from './context.js';

export interface DecayReport {
  decayed: number;
  deactivated: number;
}

export function createDecay(ctx: MemoryContext) {
  const { memories, clock, policy } = ctx;
  return {
    /**
     * Brings every memory's confidence up to date. Idempotent for a given `now`, and atomic: a
     * reinforcement by another instance meanwhile is kept (the decay is computed again after it).
     * Awaited: a session's block asks for it on serve's event loop.
     */
    async decay(): Promise<DecayReport> {
      const now = clock.now();
      const report = await memories.decayAwaited(now, (due) => {
        const changes = [];
        const unchanged = [];
        let deactivated = 0;
        for (const m of due) {
          const outcome = applyDecay(m, now, policy);
          const next = nextDecayAt(m.lastReinforcedAt, now, policy);
          if (!outcome.changed) {
            unchanged.push({ id: m.id, nextDecayAt: next });
            continue;
          }
          if (!outcome.active) deactivated += 1;
          changes.push({
            id: m.id,
            action: outcome.active ? ('decayed' as const) : ('deactivated' as const),
            confidence: outcome.confidence,
            active: outcome.active,
            nextDecayAt: next,
            at: now,
          });
        }
        return {
          changes,
          unchanged,
          report: { decayed: changes.length - deactivated, deactivated },
        };
      });
      return report ?? { decayed: 0, deactivated: 0 };
    },
  };
}
