/**
 * The one memory service. Every write to memory (a marker, the operator, a memory tool, an
 * extraction) comes here: an observation close in meaning to an active memory of the same service
 * reinforces it whatever its category; one close in topic that states a different fact (another
 * number, duration, version, port, or a negation) supersedes it; anything else is new. Also decay
 * and the operator's curation (the session's memory block is built in injection.ts). Values come from the pure functions of
 * src/memory; every change lands with its history row.
 *
 * Fleet scope: a new memory belongs to the instance that learned it, or to the whole fleet when a
 * share rule names its service or category; the operator shares and unshares. Dedup compares
 * only with what this instance sees (its memories and the fleet's).
 */
import type { Clock } from '../clock.js';
import {
  type EventStore,
  FLEET,
  type Importance,
  type MemoryRow,
  type MemorySource,
  type MemoryStore,
  type SearchStore,
  type TombstoneStore,
} from '../db/index.js';
import { AppError } from '../errors.js';
import {
  applyDecay,
  type Category,
  type Contradiction,
  DEFAULT_POLICY,
  dot,
  findContradiction,
  formatConfidence,
  fromBlob,
  IMPORTANCE_STEP,
  IMPORTANCE_VALUES,
  importanceValue,
  MAX_NOTE_LENGTH,
  type MemoryPolicy,
  nextDecayAt,
  reinforcedConfidence,
  roundConfidence,
  suggestsCore,
  textSimilarity,
  toBlob,
  validateConfidence,
  validateNote,
  validateObservation,
} from '../memory/index.js';
import type { Embedding } from './embedding.js';
import { removeMemories } from './memory-removal.js';
import type { Services } from './services.js';

export interface Observation {
  service: string | null;
  category: Category;
  observation: string;
  sessionId: number | null;
  tier: number;
  /** What writes it: a marker (default for the agent), a tool call, the operator, ... */
  source?: MemorySource;
  /** Which one: a tool call id, "conversation c42 #10-24", a file. */
  sourceRef?: string | null;
  /** Evidence given with it, kept in the history (a memory tool's new_evidence). */
  evidence?: string | null;
  importance?: Importance;
  /** 'ops' (default) or a conversation scope; dedup compares within one scope. */
  scope?: string;
}

export interface ObserveOutcome {
  /** `superseded`: a new memory was created and `replaced` was deactivated in its favour. */
  action: 'created' | 'reinforced' | 'superseded';
  memory: MemoryRow;
  /** The existing memory it matched (reinforced or superseded), with how close it was. */
  match?: { memory: MemoryRow; similarity: number; measure: 'cosine' | 'lexical' };
  replaced?: MemoryRow;
  contradiction?: Contradiction;
}

/** What decides between reinforce, supersede and create, for one candidate memory. */
interface Closest {
  memory: MemoryRow;
  similarity: number;
  measure: 'cosine' | 'lexical';
  duplicate: number;
  related: number;
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
  importance?: Importance;
}

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

/** Why and since when a memory is inactive (the archive scope of memory_query). */
export interface InactiveReason {
  reason: string;
  at: number;
}

export interface MemoryEdit {
  observation?: string;
  confidence?: number;
}

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

/** New memories about these services, or in these categories, are shared with the fleet. */
export interface ShareRules {
  memoryServices?: readonly string[];
  memoryCategories?: readonly string[];
}

export interface MergeOutcome {
  survivor: MemoryRow;
  merged: MemoryRow[];
}

export function createMemoryService(deps: {
  memories: MemoryStore;
  events: EventStore;
  search: SearchStore;
  tombstones: TombstoneStore;
  embedding: Embedding;
  services: Services;
  clock: Clock;
  policy?: MemoryPolicy;
  /** This sidecar's instance name (`local` when omitted). */
  instance?: string;
  share?: ShareRules;
}) {
  const { memories, events, search, embedding, services, clock } = deps;
  const policy = deps.policy ?? DEFAULT_POLICY;
  const instance = deps.instance ?? 'local';
  const sharedServices = new Set((deps.share?.memoryServices ?? []).map((s) => s.toLowerCase()));
  const sharedCategories = new Set(
    (deps.share?.memoryCategories ?? []).map((s) => s.toLowerCase()),
  );
  /** Where a new memory goes: the fleet when a share rule names its service or category. */
  const instanceFor = (service: string | null, category: string): string =>
    (service !== null && sharedServices.has(service.toLowerCase())) ||
    sharedCategories.has(category.toLowerCase())
      ? FLEET
      : instance;

  /**
   * The active memory of the same service closest to the text: by cosine where both have a
   * vector from the current model, lexically otherwise (each measure with its own thresholds).
   */
  const closest = (
    service: string | null,
    scope: string,
    text: string,
    vector: Float32Array | null,
    maxId?: number,
  ) => {
    const pool = memories.activeOfService(service, scope, 2000, maxId, instance);
    const vectors =
      vector && embedding.model
        ? search.vectorsOf(
            pool.map((m) => m.id),
            embedding.model,
          )
        : null;
    const t = embedding.thresholds;
    let best: Closest | null = null;
    let bestScore = -Infinity;
    for (const memory of pool) {
      const blob = vectors?.get(memory.id);
      const c: Closest = blob
        ? {
            memory,
            similarity: dot(vector!, fromBlob(blob)),
            measure: 'cosine',
            duplicate: t.duplicate,
            related: t.related,
          }
        : {
            memory,
            similarity: textSimilarity(memory.observation, text),
            measure: 'lexical',
            duplicate: policy.similarityThreshold,
            related: policy.similarityThreshold * 0.6,
          };
      // Compared by how far past its own "related" threshold each one is.
      const score = c.similarity - c.related;
      if (score > bestScore) {
        best = c;
        bestScore = score;
      }
    }
    return best;
  };

  const storeVector = (id: number, vector: Float32Array | null): void => {
    if (!vector || !embedding.model) return;
    search.putVectors(
      [{ memoryId: id, vector: toBlob(vector) }],
      embedding.model,
      vector.length,
      clock.now(),
    );
  };

  const newMemoryEvent = (m: MemoryRow, sessionId: number | null, now: number, note = '') => {
    events.insert({
      sessionId,
      source: 'system',
      level: 'info',
      service: m.service,
      message: `New memory recorded${note}: [${m.category}:${m.service ?? 'general'}] ${m.observation}`,
      createdAt: now,
    });
  };

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

  const createRow = (
    input: Observation & { confidence?: number; pinned?: boolean },
    observation: string,
    now: number,
  ): MemoryRow =>
    mustGet(
      memories.create({
        service: input.service,
        category: input.category,
        observation,
        confidence: input.confidence ?? policy.newConfidence,
        sessionId: input.sessionId,
        tier: input.tier,
        // Core memories are pinned: never decayed, archived or ranked below their peers.
        pinned: (input.pinned ?? false) || input.importance === 'core',
        at: now,
        nextDecayAt: nextDecayAt(now, now, policy),
        importance: input.importance ?? 'normal',
        source: input.source ?? (input.tier === 0 ? 'operator' : 'marker'),
        sourceRef: input.sourceRef ?? null,
        scope: input.scope ?? 'ops',
        evidence: input.evidence ?? null,
        instance: instanceFor(input.service, input.category),
      }),
    );

  const keeper = {
    policy,

    /** This sidecar's instance name. */
    instance,

    /** The instance a new memory of this service and category belongs to (FLEET by a rule). */
    instanceFor,

    /** Whether this instance sees the memory: its own, or the fleet's. */
    isVisible(m: Pick<MemoryRow, 'instance'>): boolean {
      return m.instance === instance || m.instance === FLEET;
    },

    /** Shares a memory with every instance of the fleet (a no-op when it already is). */
    share(id: number): MemoryRow {
      const before = mustGet(id);
      if (before.instance === FLEET) return before;
      memories.setInstance(
        id,
        FLEET,
        clock.now(),
        `shared with the fleet by instance ${instance} (learned by ${before.instance})`,
      );
      return mustGet(id);
    },

    /** Gives a shared memory back to this instance alone (a no-op when it is not shared). */
    unshare(id: number): MemoryRow {
      const before = mustGet(id);
      if (before.instance !== FLEET) return before;
      memories.setInstance(id, instance, clock.now(), `unshared: kept by instance ${instance}`);
      return mustGet(id);
    },

    /**
     * An observation (agent, operator, tool): reinforces the active memory of its service that
     * says the same, supersedes one that says otherwise on the same topic, or creates a new one.
     * Never waits long on embeddings: without a vector it decides lexically and the new memory
     * stays pending until the background job embeds it.
     */
    async observe(
      input: Observation & { confidence?: number; pinned?: boolean },
    ): Promise<ObserveOutcome> {
      const observation = validateObservation(input.observation);
      const [vector] = (await embedding.documents([observation])) ?? [null];
      const now = clock.now();
      if (input.service !== null) services.seen(input.service, now);
      const match = closest(input.service, input.scope ?? 'ops', observation, vector ?? null);
      const source = input.source ?? (input.tier === 0 ? 'operator' : 'marker');
      const matchInfo = match
        ? { memory: match.memory, similarity: match.similarity, measure: match.measure }
        : undefined;
      if (match && match.similarity >= match.related) {
        const contradiction = findContradiction(match.memory.observation, observation);
        if (contradiction) {
          const created = createRow(input, observation, now);
          storeVector(created.id, vector ?? null);
          memories.change([
            {
              id: match.memory.id,
              action: 'superseded',
              confidence: match.memory.confidence,
              active: false,
              historyObservation: observation,
              sessionId: input.sessionId,
              relatedMemoryId: created.id,
              source,
              evidence: input.evidence ?? null,
              at: now,
            },
          ]);
          newMemoryEvent(created, input.sessionId, now, ` (supersedes memory ${match.memory.id})`);
          return {
            action: 'superseded',
            memory: created,
            match: matchInfo,
            replaced: mustGet(match.memory.id),
            contradiction,
          };
        }
        if (match.similarity >= match.duplicate) {
          const before = match.memory;
          memories.change([
            {
              id: before.id,
              action: 'reinforced',
              confidence: reinforcedConfidence(before.confidence, policy),
              confidenceOf: (current) => reinforcedConfidence(current.confidence, policy),
              active: true,
              ...restart(now),
              historyObservation: observation,
              sessionId: input.sessionId,
              ...(input.pinned ? { pinned: true } : {}),
              source,
              evidence: input.evidence ?? null,
              at: now,
            },
          ]);
          return { action: 'reinforced', memory: mustGet(before.id), match: matchInfo };
        }
      }
      const created = createRow(input, observation, now);
      storeVector(created.id, vector ?? null);
      if (input.tier !== 0) newMemoryEvent(created, input.sessionId, now);
      return { action: 'created', memory: created, ...(matchInfo ? { match: matchInfo } : {}) };
    },

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
      const match = closest(input.service, input.scope ?? 'ops', observation, vector, input.maxId);
      if (!match || match.similarity < match.related) return { kind: 'new' };
      const found = { memory: match.memory, similarity: match.similarity, measure: match.measure };
      const contradiction = findContradiction(match.memory.observation, observation);
      if (contradiction) return { kind: 'contradicts', ...found, contradiction };
      if (match.similarity >= match.duplicate) return { kind: 'duplicate', ...found };
      return { kind: 'new' };
    },

    /**
     * A reinforcement of an existing memory by a text that says the same (the duplicate branch
     * of observe), for a writer that judged it first (an import).
     */
    reinforceDuplicate(
      id: number,
      input: { observation: string; source: MemorySource; evidence?: string | null },
    ): MemoryRow {
      const before = mustGet(id);
      const now = clock.now();
      memories.change([
        {
          id,
          action: 'reinforced',
          confidence: reinforcedConfidence(before.confidence, policy),
          confidenceOf: (current) => reinforcedConfidence(current.confidence, policy),
          active: true,
          ...restart(now),
          historyObservation: input.observation,
          sessionId: null,
          source: input.source,
          evidence: input.evidence ?? null,
          at: now,
        },
      ]);
      return mustGet(id);
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
      memories.change([
        {
          id,
          action: 'superseded',
          confidence: before.confidence,
          active: false,
          historyObservation: by.observation,
          relatedMemoryId: by.id,
          source: by.source,
          evidence: by.evidence ?? null,
          at: clock.now(),
        },
      ]);
    },

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
      const rows = unique.map(mustGet);
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
      const provenance = (m: MemoryRow) =>
        `merged #${m.id} (${m.source}${m.sessionId === null ? '' : `, session ${m.sessionId}`}${m.sourceRef === null ? '' : `, ${m.sourceRef}`}): ${m.observation}`.slice(
          0,
          MAX_NOTE_LENGTH,
        );
      memories.change([
        ...others.map((m, i) => ({
          id: survivor.id,
          action: 'merged' as const,
          confidence,
          active,
          ...(i === 0 ? { ...restart(now), pinned, importance, importanceBoost: boost } : {}),
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
        if (mustGet(survivor.id).observation === text) storeVector(survivor.id, vector ?? null);
      }
      return { survivor: mustGet(survivor.id), merged: others.map((m) => mustGet(m.id)) };
    },

    /**
     * Brings every memory's confidence up to date. Idempotent for a given `now`, and atomic: a
     * reinforcement by another instance meanwhile is kept (the decay is computed again after it).
     */
    decay(): DecayReport {
      return memories.atomically(() => {
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
      });
    },

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
          {
            data: { field: 'confidence' },
          },
        );
      }
      return keeper.observe({
        service: input.service,
        category: input.category,
        observation: input.observation,
        confidence,
        pinned: input.pinned ?? false,
        sessionId: null,
        tier: 0,
      });
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
      if (!pinned && before.importance === 'core') {
        throw new AppError(
          'invalid_input',
          `pinned: memory ${id} is core, and core memories stay pinned (lower its importance first)`,
          { data: { field: 'pinned' } },
        );
      }
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
      if (patch.importance !== undefined) keeper.setImportance(id, patch.importance);
      return mustGet(id);
    },

    /** Deletes memories, each leaving a tombstone that says who deleted it (see memory-removal). */
    remove(ids: readonly number[], by = 'operator'): number {
      return removeMemories(
        { memories, tombstones: deps.tombstones, now: () => clock.now() },
        ids,
        by,
      );
    },

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
        {
          id,
          action: 'reinforced',
          confidence: reinforcedConfidence(before.confidence, policy),
          confidenceOf: (current) => reinforcedConfidence(current.confidence, policy),
          active: true,
          ...restart(now),
          historyObservation: input.observation ?? null,
          sessionId: input.sessionId,
          source: input.source ?? 'tool',
          evidence,
          importanceBoost: boost,
          at: now,
        },
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

    /**
     * Sets how much a memory matters. Core memories are pinned (never decayed or archived); a
     * new level starts without the boost of earlier reinforcements.
     */
    setImportance(
      id: number,
      importance: Importance,
      source: MemorySource = 'operator',
    ): MemoryRow {
      const before = mustGet(id);
      if (before.importance === importance) return before;
      const now = clock.now();
      memories.change([
        {
          id,
          action: 'edited',
          confidence: before.confidence,
          active: before.active,
          importance,
          importanceBoost: 0,
          ...(importance === 'core' ? { pinned: true } : {}),
          source,
          evidence: `importance ${before.importance} -> ${importance}`,
          at: now,
        },
      ]);
      return mustGet(id);
    },

    /**
     * Archives a memory (seed 002's archive): inactive, with the date and the reason kept, and
     * back with `restore`. Core memories are never archived.
     */
    archive(id: number, reason?: string | null, source: MemorySource = 'operator'): MemoryRow {
      const before = mustGet(id);
      if (before.importance === 'core') {
        throw new AppError(
          'invalid_input',
          `id: memory ${id} is core, and core memories are never archived (lower its importance first)`,
          { data: { field: 'id' } },
        );
      }
      const why = validateNote('reason', reason) ?? 'archived by the operator';
      if (before.archivedAt !== null) return before;
      const now = clock.now();
      memories.change([
        {
          id,
          action: 'archived',
          confidence: before.confidence,
          active: false,
          archive: { reason: why },
          source,
          evidence: why,
          at: now,
        },
      ]);
      return mustGet(id);
    },

    /**
     * Brings an archived (or otherwise inactive) memory back: active, its decay clock restarted,
     * its confidence at least the active threshold.
     */
    restore(id: number, source: MemorySource = 'operator'): MemoryRow {
      const before = mustGet(id);
      if (before.active) {
        throw new AppError(
          'invalid_input',
          `id: memory ${id} is active; there is nothing to restore`,
          {
            data: { field: 'id' },
          },
        );
      }
      const now = clock.now();
      memories.change([
        {
          id,
          action: 'restored',
          confidence: Math.max(before.confidence, policy.activeThreshold),
          active: true,
          ...restart(now),
          archive: null,
          source,
          at: now,
        },
      ]);
      return mustGet(id);
    },

    /**
     * Why a memory is inactive, and since when: the operator's archive reason, or what its
     * history says (superseded by another memory, decayed below the threshold, deactivated).
     * Null for an active memory.
     */
    inactiveReason(m: MemoryRow): InactiveReason | null {
      if (m.active) return null;
      if (m.archivedAt !== null) {
        return { reason: m.archiveReason ?? 'archived', at: m.archivedAt };
      }
      const last = memories
        .history(m.id)
        .findLast((h) => h.action === 'superseded' || h.action === 'deactivated');
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
  return keeper;
}

export type MemoryService = ReturnType<typeof createMemoryService>;
