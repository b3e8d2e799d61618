/**
 * Embeds what has no vector from the current model yet: memories stored while the backend was
 * down or slow, every memory after a model change, and (with `all`) everything again for
 * `watchkeeper reindex`. Batches of 32 (the local model's sweet spot), progress reported per batch.
 * Read and written awaited: serve runs the catch-up on its event loop every few seconds.
 */
import type { Clock } from '../clock.js';
import type { SearchStore } from '../db/index.js';
import { AppError } from '../errors.js';
import { toBlob } from '../memory/index.js';
import type { Embedding } from './embedding.js';

export interface EmbedProgress {
  done: number;
  total: number;
}

const BATCH = 32;

export function createPendingEmbedder(deps: {
  search: SearchStore;
  embedding: Embedding;
  clock: Clock;
}) {
  const { search, embedding, clock } = deps;
  let running: Promise<number> | null = null;

  /**
   * Embeds batches from `next(cursor, n)` (memories in id order after the cursor) until it runs
   * dry or `max` are done. A backend failure stops the run: quietly for the background catch-up
   * (reported once by the embedding, the rest stays pending), as an error for reindex.
   */
  const run = async (
    next: (cursor: number, n: number) => Promise<{ id: number; observation: string }[]>,
    o: { max: number; total: number; failLoudly: boolean; onProgress?: (p: EmbedProgress) => void },
  ): Promise<number> => {
    const model = embedding.model;
    if (!model) return 0;
    let done = 0;
    let cursor = 0;
    while (done < o.max) {
      const batch = await next(cursor, Math.min(BATCH, o.max - done));
      if (batch.length === 0) break;
      const vectors = await embedding.documents(batch.map((m) => m.observation));
      if (!vectors) {
        if (!o.failLoudly) break;
        throw new AppError(
          'embedding_failed',
          `the embedding backend (${model}) failed after ${done} of ${o.total}; run reindex again when it answers`,
        );
      }
      await search.putVectorsAwaited(
        batch.map((m, i) => ({ memoryId: m.id, vector: toBlob(vectors[i]!) })),
        model,
        vectors[0]!.length,
        clock.now(),
      );
      cursor = batch[batch.length - 1]!.id;
      done += batch.length;
      o.onProgress?.({ done, total: o.total });
    }
    return done;
  };

  const pendingAfter = (cursor: number, n: number) => search.pending(embedding.model!, cursor, n);

  return {
    /** How many memories wait for a vector from the current model. */
    async pendingCount(): Promise<number> {
      return embedding.model ? search.countPending(embedding.model) : 0;
    },

    /** One bounded pass in the background (serve calls this on a timer); never two at once. */
    catchUp(max = 256): Promise<number> {
      if (!running) {
        running = run(pendingAfter, { max, total: max, failLoudly: false }).finally(() => {
          running = null;
        });
      }
      return running;
    },

    /**
     * Everything without a vector from the current model, with progress; with `all`, every
     * memory again. Vectors are rewritten in place, so search keeps working while it runs.
     */
    async reindex(all: boolean, onProgress?: (p: EmbedProgress) => void): Promise<number> {
      if (!embedding.model) return 0;
      const total = await (all ? search.countMemories() : search.countPending(embedding.model));
      const next = all ? (c: number, n: number) => search.memoriesAfter(c, n) : pendingAfter;
      return run(next, {
        max: total,
        total,
        failLoudly: true,
        ...(onProgress ? { onProgress } : {}),
      });
    },
  };
}

export type PendingEmbedder = ReturnType<typeof createPendingEmbedder>;
