/**
 * The memory lifecycle applied to the store: observe (create or reinforce), decay, build the
 * prompt block, and the operator's curation (add, edit, pin, deactivate, reactivate, delete).
 * Values come from the pure functions of src/memory; every change lands with its history row.
 */
import type { Clock } from '../clock.js';
import type { EventStore, MemoryRow, MemoryStore } from '../db/index.js';
import { AppError } from '../errors.js';
import {
  applyDecay,
  assembleContext,
  type Category,
  type ContextBlock,
  DEFAULT_POLICY,
  estimateTokens,
  type MemoryPolicy,
  mostSimilar,
  nextDecayAt,
  reinforcedConfidence,
  roundConfidence,
  validateConfidence,
  validateObservation,
} from '../memory/index.js';

export interface Observation {
  service: string | null;
  category: Category;
  observation: string;
  sessionId: number | null;
  tier: number;
}

export interface ObserveOutcome {
  action: 'created' | 'reinforced';
  memory: MemoryRow;
}

export interface DecayReport {
  decayed: number;
  deactivated: number;
}

export interface MemoryPatch {
  observation?: string;
  confidence?: number;
  active?: boolean;
  pinned?: boolean;
}

export interface MemoryEdit {
  observation?: string;
  confidence?: number;
}

// The shortest possible prompt line ("- [x] y (confidence: 0.9)\n") is 6 estimated tokens.
const MIN_LINE_TOKENS = estimateTokens('- [x] y (confidence: 0.9)\n');

export function createMemoryKeeper(deps: {
  memories: MemoryStore;
  events: EventStore;
  clock: Clock;
  policy?: MemoryPolicy;
}) {
  const { memories, events, clock } = deps;
  const policy = deps.policy ?? DEFAULT_POLICY;

  // A change that restarts the decay clock at `now` schedules the first step from there.
  const restart = (now: number) => ({
    resetBase: true,
    nextDecayAt: nextDecayAt(now, now, policy),
  });

  const mustGet = (id: number): MemoryRow => {
    const row = memories.get(id);
    if (!row) throw new AppError('not_found', `memory ${id} does not exist`, { data: { id } });
    return row;
  };

  /** Wording and confidence checked and rounded: what an edit may write. */
  const validEdit = (edit: MemoryEdit): MemoryEdit => ({
    ...(edit.observation === undefined
      ? {}
      : { observation: validateObservation(edit.observation) }),
    ...(edit.confidence === undefined
      ? {}
      : { confidence: roundConfidence(validateConfidence(edit.confidence)) }),
  });

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
        ...restart(now),
        ...(edit.observation === undefined ? {} : { observation: edit.observation }),
        at: now,
      },
    ]);
  };

  const keeper = {
    policy,

    /** An observation from the agent: reinforces the most similar active memory, or creates one. */
    observe(input: Observation): ObserveOutcome {
      const now = clock.now();
      const pool = memories.reinforcementCandidates(input.service, input.category);
      const match = mostSimilar(pool, input.observation, policy.similarityThreshold);
      if (match) {
        const before = match.candidate;
        const confidence = reinforcedConfidence(before.confidence, policy);
        memories.change([
          {
            id: before.id,
            action: 'reinforced',
            confidence,
            active: true,
            ...restart(now),
            historyObservation: input.observation,
            sessionId: input.sessionId,
            at: now,
          },
        ]);
        return { action: 'reinforced', memory: mustGet(before.id) };
      }
      const id = memories.create({
        service: input.service,
        category: input.category,
        observation: input.observation,
        confidence: policy.newConfidence,
        sessionId: input.sessionId,
        tier: input.tier,
        at: now,
        nextDecayAt: nextDecayAt(now, now, policy),
      });
      const memory = mustGet(id);
      events.insert({
        sessionId: input.sessionId,
        source: 'system',
        level: 'info',
        service: input.service,
        message: `New memory recorded: [${input.category}:${input.service ?? 'general'}] ${input.observation}`,
        createdAt: now,
      });
      return { action: 'created', memory };
    },

    /** Brings every memory's confidence up to date. Idempotent for a given `now`. */
    decay(): DecayReport {
      const now = clock.now();
      const changes = [];
      const unchanged = [];
      let deactivated = 0;
      for (const m of memories.decayDue(now)) {
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
      memories.change(changes);
      memories.scheduleDecay(unchanged);
      return { decayed: changes.length - deactivated, deactivated };
    },

    /** Decays, then assembles the prompt block within `budget` estimated tokens. */
    buildContext(budget: number): ContextBlock {
      keeper.decay();
      const threshold = policy.activeThreshold;
      const total = memories.countEligible(threshold);
      const perGroup = Math.max(1, Math.floor(budget / MIN_LINE_TOKENS) + 1);
      return assembleContext(memories.contextGroups(threshold, perGroup), total, budget);
    },

    /** A memory written by the operator (tier 0); it starts active at the given confidence. */
    add(input: {
      service: string | null;
      category: Category;
      observation: string;
      confidence?: number;
      pinned?: boolean;
    }): MemoryRow {
      const confidence = roundConfidence(
        validateConfidence(input.confidence ?? policy.newConfidence),
      );
      if (confidence < policy.activeThreshold) {
        throw new AppError(
          'invalid_input',
          `confidence: a new memory needs at least ${policy.activeThreshold}`,
          {
            data: { field: 'confidence' },
          },
        );
      }
      const now = clock.now();
      const id = memories.create({
        service: input.service,
        category: input.category,
        observation: validateObservation(input.observation),
        confidence,
        sessionId: null,
        tier: 0,
        pinned: input.pinned ?? false,
        at: now,
        nextDecayAt: nextDecayAt(now, now, policy),
      });
      return mustGet(id);
    },

    /** Operator edit of wording and/or confidence; restarts the decay clock. */
    edit(id: number, edit: MemoryEdit): MemoryRow {
      const before = mustGet(id);
      writeEdit(before, validEdit(edit));
      return mustGet(id);
    },

    setPinned(id: number, pinned: boolean): MemoryRow {
      const before = mustGet(id);
      if (before.pinned === pinned) return before;
      const now = clock.now();
      memories.change([
        {
          id,
          action: pinned ? 'pinned' : 'unpinned',
          confidence: before.confidence,
          active: before.active,
          pinned,
          // Unpinning restarts the decay clock; otherwise months pinned would decay at once.
          ...(pinned ? {} : restart(now)),
          at: now,
        },
      ]);
      return mustGet(id);
    },

    deactivate(ids: readonly number[]): number {
      const now = clock.now();
      const rows = ids
        .map((id) => memories.get(id))
        .filter((m): m is MemoryRow => m?.active === true);
      return memories.change(
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
    reactivate(id: number, confidence?: number): MemoryRow {
      const before = mustGet(id);
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
      memories.change([
        { id, action: 'reactivated', confidence: next, active: true, ...restart(now), at: now },
      ]);
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
      if (patch.active === true && !mustGet(id).active) keeper.reactivate(id);
      if (patch.active === false) keeper.deactivate([id]);
      if (patch.pinned !== undefined) keeper.setPinned(id, patch.pinned);
      return mustGet(id);
    },

    remove(ids: readonly number[]): number {
      return memories.remove(ids, clock.now());
    },
  };
  return keeper;
}

export type MemoryKeeper = ReturnType<typeof createMemoryKeeper>;
