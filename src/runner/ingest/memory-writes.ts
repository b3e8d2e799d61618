/**
 * `[MEMORY:...]` markers through the memory service, one at a time and in marker order behind the
 * synchronous rows (memory writes wait on the embedder). While the outbox holds writes, or when
 * the database is out of reach, a write is held too, to keep the order; any other failure is
 * kept (the first one) and never rejects the queue.
 *
 * Each write waits for the event loop's next turn first. A write is synchronous on the database
 * once its embedding is in, and without an embedder its promise settles at once: chained
 * promise to promise, a backlog of markers (a burst of stream lines, a database one network hop
 * away) was written in one stretch that let nothing else run, neither the dashboard's requests
 * nor the stream itself (20 s at 2 ms per round trip, measured by the fleet bench).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

import { isUnreachableError } from '../../db/index.js';
import type { Category } from '../../memory/index.js';
import type { Knowledge } from '../../knowledge/index.js';
import type { HeldWrite, MarkerOutbox } from '../marker-outbox.js';
import type { IngestCounts } from './types.js';

export interface MemoryMarker {
  service: string | null;
  category: Category;
  observation: string;
}

export function createMemoryWrites(deps: {
  knowledge: Knowledge;
  sessionId: number;
  tier: number;
  counts: IngestCounts;
  outbox?: MarkerOutbox;
}) {
  const { knowledge, sessionId, tier, counts } = deps;
  let queue: Promise<void> = Promise.resolve();
  let failure: string | null = null;
  return {
    /** `what` is the marker as the outbox's note records it. */
    enqueue(what: unknown, m: MemoryMarker): void {
      const write: HeldWrite = {
        what,
        run: async () => {
          const outcome = await knowledge.memory.observe({
            service: m.service,
            category: m.category,
            observation: m.observation,
            sessionId,
            tier,
          });
          if (outcome.action === 'reinforced') counts.memoriesReinforced += 1;
          else counts.memoriesCreated += 1;
          if (outcome.action === 'superseded') counts.memoriesSuperseded += 1;
        },
      };
      const outbox = deps.outbox;
      queue = queue.then(async () => {
        await nextTurn();
        // Behind writes already held: held too, to keep the order.
        if (outbox?.holding) return outbox.hold(write, null);
        try {
          await write.run();
        } catch (err) {
          if (outbox && isUnreachableError(err)) outbox.hold(write, err);
          else failure ??= (err as Error).message;
        }
      });
    },
    settled: () => queue,
    get failure() {
      return failure;
    },
  };
}
