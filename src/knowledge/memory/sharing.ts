/**
 * Fleet scope: a new memory belongs to the instance that learned it, or to the whole fleet when a
 * share rule names its service or category; the operator shares and unshares. Dedup compares
 * only with what this instance sees (its memories and the fleet's).
 */
import { FLEET, type MemoryRow } from '../../db/index.js';
import type { MemoryContext } from './context.js';

export { placement, type ShareRules } from './placement.js';

export function createSharing(ctx: MemoryContext) {
  const { memories, clock, instance, mustGet } = ctx;
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
  };
}
