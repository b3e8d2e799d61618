/**
 * What every room of the memory service shares: the stores, the policy, this instance, and the
 * one way each kind of write lands. A change goes through `record` (the store writes its history
 * row in the same transaction); a new memory's event through `newMemoryEvent`.
 */
import type { Clock } from '../../clock.js';
import type {
  EventStore,
  MemoryChange,
  MemoryRow,
  MemoryStore,
  SearchStore,
  TombstoneStore,
} from '../../db/index.js';
import { AppError } from '../../errors.js';
import { DEFAULT_POLICY, type MemoryJudge, type MemoryPolicy, toBlob } from '../../memory/index.js';
import type { Embedding } from '../embedding.js';
import type { Services } from '../services.js';
import { restartAt } from './changes.js';
import { placement, type ShareRules } from './placement.js';

export interface MemoryDeps {
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
  /** A second opinion on re-observations the rules cannot place; none: the rules decide. */
  judge?: MemoryJudge;
}

export type MemoryContext = ReturnType<typeof createMemoryContext>;

export function createMemoryContext(deps: MemoryDeps) {
  const { memories, events, search, embedding, clock } = deps;
  const policy = deps.policy ?? DEFAULT_POLICY;
  const instance = deps.instance ?? 'local';

  const mustGet = (id: number): MemoryRow => {
    const row = memories.get(id);
    if (!row) throw new AppError('not_found', `memory ${id} does not exist`, { data: { id } });
    return row;
  };

  const mustGetAwaited = async (id: number): Promise<MemoryRow> => {
    const row = await memories.getAwaited(id);
    if (!row) throw new AppError('not_found', `memory ${id} does not exist`, { data: { id } });
    return row;
  };

  return {
    ...deps,
    policy,
    instance,
    instanceFor: placement(instance, deps.share),
    mustGet,

    /** Writes one change with its history row, and reads the memory back. */
    record(change: MemoryChange): MemoryRow {
      memories.change([change]);
      return mustGet(change.id);
    },

    /**
     * The same, awaited (observing, which serves the stream and the API): on PostgreSQL the event
     * loop goes on while the server answers.
     */
    async recordAwaited(change: MemoryChange): Promise<MemoryRow> {
      await memories.changeAwaited([change]);
      return mustGetAwaited(change.id);
    },

    mustGetAwaited,

    /** The event a new memory leaves in the feed. */
    async newMemoryEvent(
      m: MemoryRow,
      sessionId: number | null,
      now: number,
      note = '',
    ): Promise<void> {
      await events.insertAwaited({
        sessionId,
        source: 'system',
        level: 'info',
        service: m.service,
        message: `New memory recorded${note}: [${m.category}:${m.service ?? 'general'}] ${m.observation}`,
        createdAt: now,
      });
    },

    restart: (now: number) => restartAt(now, policy),

    /** Stores a memory's vector (none without one, or without a model), awaited. */
    async storeVectorAwaited(id: number, vector: Float32Array | null): Promise<void> {
      if (!vector || !embedding.model) return;
      await search.putVectorsAwaited(
        [{ memoryId: id, vector: toBlob(vector) }],
        embedding.model,
        vector.length,
        clock.now(),
      );
    },
  };
}
