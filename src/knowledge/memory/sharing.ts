/**
 * Fleet scope: a new memory belongs to the instance that learned it, or to the whole fleet when a
 * share rule names its service or category; the operator shares and unshares. Dedup compares
 * only with what this instance sees (its memories and the fleet's).
 */
import { FLEET, type MemoryRow, retryWhileMoved } from '../../db/index.js';
import type { MemoryContext } from './context.js';

export { placement, type ShareRules } from './placement.js';

/** Reads and writes again at most this often when the memory keeps changing meanwhile. */
const ATTEMPTS = 5;

export function createSharing(ctx: MemoryContext) {
  const { memories, clock, instance, mustGetAwaited } = ctx;

  /**
   * Moves a memory to `to` unless `stays` says it is where it belongs, awaited: read, then one
   * transaction while the row is as read; again when another writer changed it meanwhile.
   */
  const move = async (
    id: number,
    stays: (m: MemoryRow) => boolean,
    to: string,
    evidence: (m: MemoryRow) => string,
  ): Promise<MemoryRow> =>
    retryWhileMoved(async () => {
      const before = await mustGetAwaited(id);
      if (stays(before)) return before;
      await memories.setInstanceAwaited(before, to, clock.now(), evidence(before));
      return mustGetAwaited(id);
    }, ATTEMPTS);

  return {
    /** This sidecar's instance name. */
    instance,

    /** The instance a new memory of this service and category belongs to (FLEET by a rule). */
    instanceFor: ctx.instanceFor,

    /** Whether this instance sees the memory: its own, or the fleet's. */
    isVisible(m: Pick<MemoryRow, 'instance'>): boolean {
      return m.instance === instance || m.instance === FLEET;
    },

    /** Shares a memory with every instance of the fleet (a no-op when it already is). */
    share(id: number): Promise<MemoryRow> {
      return move(
        id,
        (m) => m.instance === FLEET,
        FLEET,
        (m) => `shared with the fleet by instance ${instance} (learned by ${m.instance})`,
      );
    },

    /** Gives a shared memory back to this instance alone (a no-op when it is not shared). */
    unshare(id: number): Promise<MemoryRow> {
      return move(
        id,
        (m) => m.instance !== FLEET,
        instance,
        () => `unshared: kept by instance ${instance}`,
      );
    },
  };
}
