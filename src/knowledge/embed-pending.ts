/**
 * Embeds what has no vector from the current model yet: memories stored while the backend was
 * down or slow, every memory after a model change, and (with `all`) everything again for
 * `watchkeeper reindex`. Batches of 32 (the local model's sweet spot), progress reported per batch.
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

  /** Embeds pending memories after `afterId`; returns how many got a vector. */
  const pass = async (
    afterId: number,
    max: number,
    onProgress?: (p: EmbedProgress) => void,
    total = 0,
  ): Promise<number> => {
    const model = embedding.model;
    if (!model) return 0;
    let done = 0;
    let cursor = afterId;
    while (done < max) {
      const batch = search.pending(model, cursor, Math.min(BATCH, max - done));
      if (batch.length === 0) break;
      const vectors = await embedding.documents(batch.map((m) => m.observation));
      if (!vectors) break; // the backend failed (reported once); the rest stays pending
      search.putVectors(
        batch.map((m, i) => ({ memoryId: m.id, vector: toBlob(vectors[i]!) })),
        model,
        vectors[0]!.length,
        clock.now(),
      );
      cursor = batch[batch.length - 1]!.id;
      done += batch.length;
      onProgress?.({ done, total });
    }
    return done;
  };

  return {
    /** How many memories wait for a vector from the current model. */
    pendingCount(): number {
      return embedding.model ? search.countPending(embedding.model) : 0;
    },

    /** One bounded pass in the background (serve calls this on a timer); never two at once. */
    catchUp(max = 256): Promise<number> {
      if (!running) {
        running = pass(0, max).finally(() => {
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
      const model = embedding.model;
      if (!model) return 0;
      if (!all) {
        const total = search.countPending(model);
        return pass(0, total, onProgress, total);
      }
      const total = search.countMemories();
      let done = 0;
      let cursor = 0;
      for (;;) {
        const batch = search.memoriesAfter(cursor, BATCH);
        if (batch.length === 0) break;
        const vectors = await embedding.documents(batch.map((m) => m.observation));
        if (!vectors) {
          throw new AppError(
            'embedding_failed',
            `the embedding backend (${model}) failed after ${done} of ${total}; run reindex again when it answers`,
          );
        }
        search.putVectors(
          batch.map((m, i) => ({ memoryId: m.id, vector: toBlob(vectors[i]!) })),
          model,
          vectors[0]!.length,
          clock.now(),
        );
        cursor = batch[batch.length - 1]!.id;
        done += batch.length;
        onProgress?.({ done, total });
      }
      return done;
    },
  };
}

export type PendingEmbedder = ReturnType<typeof createPendingEmbedder>;
