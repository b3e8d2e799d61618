/**
 * Observing: every write of a memory (a marker, the operator, a memory tool, an extraction)
 * comes here. Beside the active memory of the same service closest to it, whatever its category,
 * the rules of memory/reobservation.ts read an observation as the same fact (it reinforces the
 * memory), a change of it (it supersedes the memory) or a fact of its own (a new memory). Where
 * the rules cannot tell (close, short of a duplicate, nothing they read) and a model is
 * configured, the model's verdict decides (memory/judge.ts), recorded in the history.
 */
import type { MemoryRow } from '../../db/index.js';
import { AppError } from '../../errors.js';
import {
  type Category,
  type Contradiction,
  judgedEvidence,
  type JudgeVerdict,
  readReobservation,
  roundConfidence,
  validateConfidence,
  validateObservation,
} from '../../memory/index.js';
import { reinforcedChange, supersededChange } from './changes.js';
import { type Closest, nearest } from './closest.js';
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
  /** The model's verdict, when the rules could not tell and it decided. */
  judged?: JudgeVerdict;
}

/** How many close memories the model is shown at most. */
const JUDGE_CANDIDATES = 3;

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
    if (input.service !== null) await services.seenAwaited(input.service, now);
    const near = await nearest(
      ctx,
      input.service,
      input.scope ?? 'ops',
      observation,
      vector ?? null,
      ctx.judge ? JUDGE_CANDIDATES : 1,
    );
    const match: Closest | undefined = near[0];
    const source = input.source ?? (input.tier === 0 ? 'operator' : 'marker');
    const evidence = input.evidence ?? null;
    const info = (m: Closest) => ({
      memory: m.memory,
      similarity: m.similarity,
      measure: m.measure,
    });
    const matchInfo = match ? info(match) : undefined;

    const supersede = async (
      old: Closest,
      extra: Partial<ObserveOutcome>,
      why: string | null,
    ): Promise<ObserveOutcome> => {
      const created = await createMemory(
        ctx,
        why ? { ...input, evidence: why } : input,
        observation,
        now,
      );
      await ctx.storeVectorAwaited(created.id, vector ?? null);
      const by = {
        id: created.id,
        observation,
        source,
        evidence: why ?? evidence,
        sessionId: input.sessionId,
      };
      const replaced = await ctx.recordAwaited(supersededChange(old.memory, by, now));
      await ctx.newMemoryEvent(
        created,
        input.sessionId,
        now,
        ` (supersedes memory ${old.memory.id})`,
      );
      const outcome: ObserveOutcome = {
        action: 'superseded',
        memory: created,
        match: info(old),
        replaced,
        ...extra,
      };
      return outcome;
    };
    const reinforce = async (
      m: Closest,
      extra: Partial<ObserveOutcome>,
      why: string | null,
    ): Promise<ObserveOutcome> => {
      const memory = await ctx.recordAwaited(
        reinforcedChange(m.memory, now, policy, {
          historyObservation: observation,
          sessionId: input.sessionId,
          ...(input.pinned ? { pinned: true } : {}),
          source,
          evidence: why ?? evidence,
        }),
      );
      const outcome: ObserveOutcome = { action: 'reinforced', memory, match: info(m), ...extra };
      return outcome;
    };

    let judged: JudgeVerdict | undefined;
    let createInput = input;
    const read = match
      ? readReobservation(match.memory.observation, observation, match.similarity, match)
      : ({ kind: 'apart' } as const);
    if (read.kind === 'changes') {
      return supersede(match!, { contradiction: read.contradiction }, null);
    }
    if (read.kind === 'same') return reinforce(match!, {}, null);
    if (read.kind === 'unsure' && ctx.judge) {
      // Close, short of a duplicate, no value or change the rules read: the model's turn.
      const shown = near.filter((c) => c.similarity >= c.related);
      const verdict = await ctx.judge({
        service: input.service,
        observation,
        candidates: shown.map((c) => ({ id: c.memory.id, observation: c.memory.observation })),
      });
      if (verdict) {
        judged = verdict;
        // Read again: the memory may have changed (or gone) while the model thought.
        const shownNamed = shown.find((c) => c.memory.id === verdict.memoryId);
        const current = shownNamed ? await ctx.memories.getAwaited(shownNamed.memory.id) : null;
        const named =
          shownNamed && current?.active ? { ...shownNamed, memory: current } : undefined;
        const why = [evidence, judgedEvidence(verdict)].filter((e) => e).join('; ');
        if (verdict.verdict === 'same' && named) return reinforce(named, { judged }, why);
        if (verdict.verdict === 'updates' && named) return supersede(named, { judged }, why);
        createInput = { ...input, evidence: why };
      }
    }
    const created = await createMemory(ctx, createInput, observation, now);
    await ctx.storeVectorAwaited(created.id, vector ?? null);
    if (input.tier !== 0) await ctx.newMemoryEvent(created, input.sessionId, now);
    return {
      action: 'created',
      memory: created,
      ...(matchInfo ? { match: matchInfo } : {}),
      ...(judged ? { judged } : {}),
    };
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
