/**
 * Observing in two steps, for a writer that judges first and writes later (an import): what
 * observe would do with a text, then the reinforce or supersede branch of observe on its own.
 */
import type { MemoryRow, MemorySource } from '../../db/index.js';
import { type Contradiction, readReobservation, validateObservation } from '../../memory/index.js';
import { reinforcedChange, supersededChange } from './changes.js';
import { closest } from './closest.js';
import type { MemoryContext } from './context.js';

/** What observe would do with a text, decided by the same rule without writing anything. */
export type Judgement =
  | { kind: 'new' }
  | { kind: 'duplicate'; memory: MemoryRow; similarity: number; measure: 'cosine' | 'lexical' }
  | {
      kind: 'contradicts';
      memory: MemoryRow;
      similarity: number;
      measure: 'cosine' | 'lexical';
      contradiction: Contradiction;
    };

export function createJudging(ctx: MemoryContext) {
  const { memories, embedding, clock, policy, mustGet } = ctx;
  return {
    /**
     * What observe would do with this text (reinforce a duplicate, supersede a memory it
     * contradicts, or create), by the same rule, writing nothing. `maxId` leaves out memories
     * made after it (an import compares with what was there before it began). Without a vector,
     * it is embedded here (when embeddings are on).
     */
    async judge(input: {
      service: string | null;
      scope?: string;
      observation: string;
      vector?: Float32Array | null;
      maxId?: number;
    }): Promise<Judgement> {
      const observation = validateObservation(input.observation);
      const vector =
        input.vector !== undefined
          ? input.vector
          : (((await embedding.documents([observation])) ?? [null])[0] ?? null);
      const scope = input.scope ?? 'ops';
      const match = await closest(ctx, input.service, scope, observation, vector, input.maxId);
      if (!match) return { kind: 'new' };
      const found = { memory: match.memory, similarity: match.similarity, measure: match.measure };
      // The rule observe decides by; what is unsure is new here (an import asks no model).
      const read = readReobservation(
        match.memory.observation,
        observation,
        match.similarity,
        match,
      );
      if (read.kind === 'changes') {
        return { kind: 'contradicts', ...found, contradiction: read.contradiction };
      }
      return read.kind === 'same' ? { kind: 'duplicate', ...found } : { kind: 'new' };
    },

    /**
     * A reinforcement of an existing memory by a text that says the same (the duplicate branch
     * of observe), for a writer that judged it first (an import).
     */
    reinforceDuplicate(
      id: number,
      input: { observation: string; source: MemorySource; evidence?: string | null },
    ): MemoryRow {
      return ctx.record(
        reinforcedChange(mustGet(id), clock.now(), policy, {
          historyObservation: input.observation,
          sessionId: null,
          source: input.source,
          evidence: input.evidence ?? null,
        }),
      );
    },

    /**
     * Marks an active memory superseded by a newer one that says otherwise (the supersede branch
     * of observe), for a writer that judged and wrote the newer one first (an import). A memory
     * no longer active is left as it is.
     */
    supersede(
      id: number,
      by: { id: number; observation: string; source: MemorySource; evidence?: string | null },
    ): void {
      const before = mustGet(id);
      if (!before.active) return;
      memories.change([supersededChange(before, by, clock.now())]);
    },
  };
}
