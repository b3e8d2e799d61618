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
          { vectorsSince: search.ideaVectorsSince, vectorWatch: search.ideaVectorWatch },
          model,
          dimension,
        );
      }
      return ideas;
    }
    if (!spans || spans.dimension !== dimension) {
      spans = createVectorIndex(
        { vectorsSince: search.spanVectorsSince, vectorWatch: search.spanVectorWatch },
        model,
        dimension,
      );
    }
    return spans;
  };

  const nearest = (
    kind: 'ideas' | 'spans',
    query: Float32Array,
    limit: number,
    allowed?: (ids: number[]) => Set<number>,
  ): VectorHit[] => {
    const coarse = index(kind, query.length).candidates(query, Math.max(COARSE, limit * 2));
    const keep = allowed?.(coarse);
    const ids = keep ? coarse.filter((id) => keep.has(id)) : coarse;
    const model = embedding.model!;
    const vectors =
      kind === 'ideas' ? search.ideaVectorsOf(ids, model) : search.spanVectorsOf(ids, model);
    return rankExact(query, vectors, limit).map((h) => ({ id: h.memoryId, cosine: h.cosine }));
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

    /** The ideas nearest a vector (optionally only those `allowed` keeps), best first. */
    nearestIdeas(query: Float32Array, limit: number, allowed?: (ids: number[]) => Set<number>) {
      return nearest('ideas', query, limit, allowed);
    },

    nearestSpans(query: Float32Array, limit: number): VectorHit[] {
      return nearest('spans', query, limit);
    },

    ideaVectors(ids: readonly number[]): Map<number, Float32Array> {
      const out = new Map<number, Float32Array>();
      if (!embedding.model) return out;
      for (const [id, blob] of search.ideaVectorsOf(ids, embedding.model))
        out.set(id, fromBlob(blob));
      return out;
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
    refresh(dimension: number): void {
      index('ideas', dimension).refresh();
      index('spans', dimension).refresh();
    },
  };
}

export type GraphVectors = ReturnType<typeof createGraphVectors>;
