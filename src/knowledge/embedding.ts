/**
 * The embedder as the knowledge layer uses it: optional (off, or not there yet), never blocking
 * (a failure or a slow answer yields no vector, and the caller goes on lexically), and loud
 * exactly once per outage (one system event when it starts failing, one when it recovers).
 */
import type { Clock } from '../clock.js';
import type { EventStore } from '../db/index.js';
import type { Embedder } from '../embed/embedder.js';
import { LEXICAL, type SimilarityThresholds, thresholdsFor } from '../memory/index.js';

export interface Embedding {
  readonly embedder: Embedder | null;
  /** The model whose vectors count, or null when embeddings are off. */
  readonly model: string | null;
  readonly thresholds: SimilarityThresholds;
  /** Whether the last call failed (search then says it ran lexically). */
  readonly failing: boolean;
  query(text: string): Promise<Float32Array | null>;
  documents(texts: readonly string[]): Promise<Float32Array[] | null>;
}

export function createEmbedding(deps: {
  embedder: Embedder | null;
  events: EventStore;
  clock: Clock;
}): Embedding {
  const { embedder, events, clock } = deps;
  let failing = false;

  const report = (ok: boolean, err?: unknown) => {
    if (ok === !failing) return;
    failing = !ok;
    events.insert({
      sessionId: null,
      source: 'system',
      level: ok ? 'info' : 'warning',
      service: null,
      message: ok
        ? `Embeddings (${embedder!.model}) are working again; pending memories are being embedded.`
        : `Embeddings (${embedder!.model}) failed: ${(err as Error).message}. Search is lexical ` +
          'and new memories are stored pending until the backend answers again.',
      createdAt: clock.now(),
    });
  };

  const run = async (texts: readonly string[], kind: 'query' | 'document') => {
    if (!embedder) return null;
    try {
      const out =
        kind === 'query'
          ? await embedder.embedQueries(texts)
          : await embedder.embedDocuments(texts);
      report(true);
      return out;
    } catch (err) {
      report(false, err);
      return null;
    }
  };

  return {
    embedder,
    model: embedder?.model ?? null,
    thresholds: embedder ? thresholdsFor(embedder.model) : LEXICAL,
    get failing() {
      return failing;
    },
    async query(text) {
      const out = await run([text], 'query');
      return out?.[0] ?? null;
    },
    documents: (texts) => run(texts, 'document'),
  };
}
