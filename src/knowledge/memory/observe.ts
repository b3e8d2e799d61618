/**
 * Observing: every write of a memory (a marker, the operator, a memory tool, an extraction)
 * comes here. An observation close in meaning to an active memory of the same service
 * reinforces it whatever its category; one close in topic that states a different fact (another
 * number, duration, version, port, or a negation) supersedes it; anything else is new.
 */
import type { MemoryRow } from '../../db/index.js';
import { AppError } from '../../errors.js';
import {
  type Category,
  type Contradiction,
  findContradiction,
  roundConfidence,
  validateConfidence,
  validateObservation,
} from '../../memory/index.js';
import { reinforcedChange, supersededChange } from './changes.js';
import { closest } from './closest.js';
import type { MemoryContext } from './context.js';
import { createMemory, type ObserveInput } from './create.js';

export { type Observation } from './create.js';

export interface ObserveOutcome {
  /** `superseded`: a new memory was created and `replaced` was deactivated in its favour. */
  action: 'created' | 'reinforced' | 'superseded';
  memory: MemoryRow;
  /** The existing memory it matched (reinforced or superseded), with how close it was. */
  match?: { memory: MemoryRow; similarity: number; measure: 'cosine' | 'lexical' };
  replaced?: MemoryRow;
  contradiction?: Contradiction;
}

export function createObserving(ctx: MemoryContext) {
  const { embedding, services, clock, policy } = ctx;

  /**
   * An observation (agent, operator, tool): reinforces the active memory of its service that
   * says the same, supersedes one that says otherwise on the same topic, or creates a new one.
   * Never waits long on embeddings: without a vector it decides lexically and the new memory
   * stays pending until the background job embeds it.
   */
  const observe = async (input: ObserveInput): Promise<ObserveOutcome> => {
    const observation = validateObservation(input.observation);
    const [vector] = (await embedding.documents([observation])) ?? [null];
    const now = clock.now();
    if (input.service !== null) services.seen(input.service, now);
    const match = closest(ctx, input.service, input.scope ?? 'ops', observation, vector ?? null);
    const source = input.source ?? (input.tier === 0 ? 'operator' : 'marker');
    const evidence = input.evidence ?? null;
    const matchInfo = match
      ? { memory: match.memory, similarity: match.similarity, measure: match.measure }
      : undefined;
    if (match && match.similarity >= match.related) {
      const contradiction = findContradiction(match.memory.observation, observation);
      if (contradiction) {
        const created = createMemory(ctx, input, observation, now);
        ctx.storeVector(created.id, vector ?? null);
        const by = { id: created.id, observation, source, evidence, sessionId: input.sessionId };
        const replaced = ctx.record(supersededChange(match.memory, by, now));
        ctx.newMemoryEvent(
          created,
          input.sessionId,
          now,
          ` (supersedes memory ${match.memory.id})`,
        );
        return { action: 'superseded', memory: created, match: matchInfo, replaced, contradiction };
      }
      if (match.similarity >= match.duplicate) {
        const memory = ctx.record(
          reinforcedChange(match.memory, now, policy, {
            historyObservation: observation,
            sessionId: input.sessionId,
            ...(input.pinned ? { pinned: true } : {}),
            source,
            evidence,
          }),
        );
        return { action: 'reinforced', memory, match: matchInfo };
      }
    }
    const created = createMemory(ctx, input, observation, now);
    ctx.storeVector(created.id, vector ?? null);
    if (input.tier !== 0) ctx.newMemoryEvent(created, input.sessionId, now);
    return { action: 'created', memory: created, ...(matchInfo ? { match: matchInfo } : {}) };
  };

  return {
    observe,

    /**
     * A memory written by the operator (tier 0): checked like any observation, so one that says
     * what an active memory already says reinforces it instead of duplicating it.
     */
    async add(input: {
      service: string | null;
      category: Category;
      observation: string;
      confidence?: number;
      pinned?: boolean;
    }): Promise<ObserveOutcome> {
      const confidence = roundConfidence(
        validateConfidence(input.confidence ?? policy.newConfidence),
      );
      if (confidence < policy.activeThreshold) {
        throw new AppError(
          'invalid_input',
          `confidence: a new memory needs at least ${policy.activeThreshold}`,
          { data: { field: 'confidence' } },
        );
      }
      return observe({
        service: input.service,
        category: input.category,
        observation: input.observation,
        confidence,
        pinned: input.pinned ?? false,
        sessionId: null,
        tier: 0,
      });
    },
  };
}
