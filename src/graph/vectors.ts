/**
 * The vector side of the graph: ideas and span summaries embedded with the knowledge layer's
 * embedder (never blocking: a failing backend leaves them pending, found by words until the next
 * `graph index` embeds them), and searched with the sign-bit index (knowledge/vector-index.ts).
 */
import type { GraphSearchStore } from '../db/graph/graph.js';
import type { Embedding } from '../knowledge/index.js';
import { createVectorIndex, rankExact, type VectorIndex } from '../knowledge/vector-index.js';
import { fromBlob, toBlob } from '../memory/index.js';

/** Candidates of the coarse (Hamming) pass that are ranked exactly. */
const COARSE = 400;
/** Texts per embedding call. */
const BATCH = 256;

const decoded = (blobs: Map<number, Uint8Array>) =>
  new Map([...blobs].map(([id, blob]) => [id, fromBlob(blob)]));

export interface VectorHit {
  id: number;
  cosine: number;
}

export function createGraphVectors(search: GraphSearchStore, embedding: Embedding) {
  let ideas: VectorIndex | null = null;
  let spans: VectorIndex | null = null;
  const index = (kind: 'ideas' | 'spans', dimension: number): VectorIndex => {
    const model = embedding.model!;
    if (kind === 'ideas') {
      if (!ideas || ideas.dimension !== dimension) {
        ideas = createVectorIndex(
          {
            vectorsSince: search.ideaVectorsSince,
            vectorsSinceAwaited: search.ideaVectorsSinceAwaited,
            vectorWatch: search.ideaVectorWatch,
          },
          model,
          dimension,
        );
      }
      return ideas;
    }
    if (!spans || spans.dimension !== dimension) {
      // Only a search reads the spans' index: it catches up awaited.
      spans = createVectorIndex(
        { vectorsSinceAwaited: search.spanVectorsSince, vectorWatch: search.spanVectorWatch },
        model,
        dimension,
      );
    }
    return spans;
  };

  const ranked = (query: Float32Array, vectors: Map<number, Uint8Array>, limit: number) =>
    rankExact(query, vectors, limit).map((h) => ({ id: h.memoryId, cosine: h.cosine }));

  /** The nearest of the coarse pass's candidates (those `allowed` keeps), awaited. */
  const nearestAwaited = async (
    kind: 'ideas' | 'spans',
    query: Float32Array,
    limit: number,
    allowed?: (ids: number[]) => Promise<Set<number>>,
  ): Promise<VectorHit[]> => {
    const coarse = await index(kind, query.length).candidatesAwaited(
      query,
      Math.max(COARSE, limit * 2),
    );
    const model = embedding.model!;
    // The filter and the vectors side by side: one round trip where there were two.
    const [keep, vectors] = await Promise.all([
      allowed?.(coarse),
      kind === 'ideas'
        ? search.ideaVectorsOfAwaited(coarse, model)
        : search.spanVectorsOf(coarse, model),
    ]);
    if (keep) for (const id of vectors.keys()) if (!keep.has(id)) vectors.delete(id);
    return ranked(query, vectors, limit);
  };

  return {
    get model(): string | null {
      return embedding.model;
    },

    /** Embeds texts as documents in batches; null when embeddings are off or failing. */
    async documents(texts: readonly string[]): Promise<Float32Array[] | null> {
      if (!embedding.model || texts.length === 0) return embedding.model ? [] : null;
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += BATCH) {
        const part = await embedding.documents(texts.slice(i, i + BATCH));
        if (!part) return null;
        out.push(...part);
      }
      return out;
    },

    query: (text: string) => (embedding.model ? embedding.query(text) : Promise.resolve(null)),

    /**
     * The ideas nearest a vector, best first, read at once: indexing asks within its
     * transaction, for the ideas it has just written too. A search asks `nearestIdeasAwaited`.
     */
    nearestIdeas(query: Float32Array, limit: number): VectorHit[] {
      const coarse = index('ideas', query.length).candidates(query, Math.max(COARSE, limit * 2));
      return ranked(query, search.ideaVectorsOf(coarse, embedding.model!), limit);
    },

    /** The same, awaited (committed rows only), optionally only those `allowed` keeps. */
    nearestIdeasAwaited(
      query: Float32Array,
      limit: number,
      allowed?: (ids: number[]) => Promise<Set<number>>,
    ): Promise<VectorHit[]> {
      return nearestAwaited('ideas', query, limit, allowed);
    },

    nearestSpans(query: Float32Array, limit: number): Promise<VectorHit[]> {
      return nearestAwaited('spans', query, limit);
    },

    /** Vectors of these ideas, read at once (indexing, within its transaction). */
    ideaVectors(ids: readonly number[]): Map<number, Float32Array> {
      if (!embedding.model) return new Map();
      return decoded(search.ideaVectorsOf(ids, embedding.model));
    },

    /** The same, awaited (committed rows only). */
    async ideaVectorsAwaited(ids: readonly number[]): Promise<Map<number, Float32Array>> {
      if (!embedding.model) return new Map();
      return decoded(await search.ideaVectorsOfAwaited(ids, embedding.model));
    },

    putIdeas(rows: readonly { id: number; vector: Float32Array }[], at: number): void {
      if (!embedding.model || rows.length === 0) return;
      search.putIdeaVectors(
        rows.map((r) => ({ id: r.id, vector: toBlob(r.vector) })),
        embedding.model,
        rows[0]!.vector.length,
        at,
      );
    },

    putSpans(rows: readonly { id: number; vector: Float32Array }[], at: number): void {
      if (!embedding.model || rows.length === 0) return;
      search.putSpanVectors(
        rows.map((r) => ({ id: r.id, vector: toBlob(r.vector) })),
        embedding.model,
        rows[0]!.vector.length,
        at,
      );
    },

    /** Loads what other processes wrote (serve calls it before the first remember). */
    async refresh(dimension: number): Promise<void> {
      await Promise.all([
        index('ideas', dimension).refreshAwaited(),
        index('spans', dimension).refreshAwaited(),
      ]);
    },
  };
}

export type GraphVectors = ReturnType<typeof createGraphVectors>;
