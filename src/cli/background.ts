/**
 * serve's own background loops: the embedding catch-up (once the model has loaded, memories
 * stored while it was not answering get their vectors) and the timed extraction of
 * conversations. Both run through the background loop of the store, so a lost database pauses
 * them (one warning for the outage) and they resume when it answers.
 */
import type { Conversations } from '../conversations/index.js';
import { type DatabaseOutage, startBackgroundLoop, type LoopTimers } from '../db/index.js';
import type { Embedder } from '../embed/index.js';
import type { Knowledge } from '../knowledge/index.js';
import type { Logger } from '../log.js';

/** How often serve embeds memories stored while the embedding backend was down or slow. */
export const PENDING_EVERY_MS = 10_000;
/** How often serve looks for conversations due for their timed extraction. */
export const EXTRACT_TICK_MS = 10_000;

export interface BackgroundWorkDeps {
  knowledge: Pick<Knowledge, 'pending' | 'search'>;
  embedder: Pick<Embedder, 'model' | 'warmUp'> | null;
  conversations: Pick<Conversations, 'tick'>;
  outage: DatabaseOutage;
  log: Logger;
  timers?: LoopTimers;
}

export function startBackgroundWork(d: BackgroundWorkDeps): { stop(): Promise<void> } {
  const extraction = startBackgroundLoop({
    name: 'conversation extraction',
    everyMs: EXTRACT_TICK_MS,
    run: () => d.conversations.tick(),
    onError: (err) => d.log.error('the extraction sweep failed', { error: err as Error }),
    outage: d.outage,
    ...(d.timers ? { timers: d.timers } : {}),
  });
  extraction.start();
  const embedder = d.embedder;
  if (!embedder) return { stop: () => extraction.stop() };

  // The vector index is read once, when the model has loaded (again after a failed read).
  let prepared = false;
  const catchUp = startBackgroundLoop({
    name: 'embedding catch-up',
    everyMs: PENDING_EVERY_MS,
    run: async () => {
      if (!prepared) {
        prepared = true;
        // Beside the catch-up: with pgvector, the database's index may take a while to make.
        void d.knowledge.search.prepare().catch((err: unknown) => {
          prepared = false;
          d.log.warn('could not make the vector index; searches compare every vector', {
            error: err as Error,
          });
        });
      }
      const n = await d.knowledge.pending.catchUp();
      if (n > 0) d.log.info('memories embedded', { count: n, model: embedder.model });
    },
    onError: (err) => d.log.warn('embedding pending memories failed', { error: err as Error }),
    outage: d.outage,
    ...(d.timers ? { timers: d.timers } : {}),
  });
  let stopped = false;
  void embedder.warmUp().then(
    () => {
      if (stopped) return;
      d.log.info('the embedding model is loaded', { model: embedder.model });
      catchUp.start(0);
    },
    (err: unknown) =>
      d.log.warn('the embedding model did not load; search is lexical until it does', {
        error: err as Error,
      }),
  );
  return {
    async stop() {
      stopped = true;
      await Promise.all([extraction.stop(), catchUp.stop()]);
    },
  };
}
