/**
 * The memories closest to a text, each with its similarity and the thresholds of its measure:
 * cosine between the text embedded as a memory would be and each memory's stored vector (the
 * measure dedup and supersession use, so the thresholds mean the same here), and lexical
 * similarity for memories without a vector or when embeddings are off. Candidates come from the
 * one hybrid search.
 */
import type { MemoryRow } from '../db/index.js';
import {
  dot,
  fromBlob,
  LEXICAL,
  type SimilarityThresholds,
  textSimilarity,
} from '../memory/index.js';
import type { ToolContext } from './context.js';

export interface Match {
  memory: MemoryRow;
  similarity: number;
  measure: 'cosine' | 'lexical';
  thresholds: SimilarityThresholds;
}

const CANDIDATES = 50;

/**
 * Active memories close to `text`, best first (by how far past its measure's "related"
 * threshold each is). `service`: only that service's memories and general ones.
 */
export async function closestMemories(
  ctx: ToolContext,
  text: string,
  service: string | null,
): Promise<Match[]> {
  const { knowledge, stores } = ctx;
  const answer = await knowledge.search.search(text, {
    status: 'active',
    includeBelowThreshold: true,
    limit: CANDIDATES,
  });
  const pool = answer.results
    .map((r) => r.memory)
    .filter((m) => service === null || m.service === service || m.service === null);
  const model = knowledge.embedding.model;
  const [vector] = model ? ((await knowledge.embedding.documents([text])) ?? [null]) : [null];
  const vectors =
    vector && model
      ? stores.search.vectorsOf(
          pool.map((m) => m.id),
          model,
        )
      : null;
  const matches = pool.map((memory): Match => {
    const blob = vectors?.get(memory.id);
    return blob
      ? {
          memory,
          similarity: dot(vector!, fromBlob(blob)),
          measure: 'cosine',
          thresholds: knowledge.embedding.thresholds,
        }
      : {
          memory,
          similarity: textSimilarity(memory.observation, text),
          measure: 'lexical',
          thresholds: LEXICAL,
        };
  });
  return matches.sort(
    (a, b) =>
      b.similarity - b.thresholds.related - (a.similarity - a.thresholds.related) ||
      a.memory.id - b.memory.id,
  );
}

/** "cosine 0.91" / "words 0.62": a similarity and its measure. */
export function similarityText(m: Pick<Match, 'similarity' | 'measure'>): string {
  return `${m.measure === 'cosine' ? 'cosine' : 'word overlap'} ${m.similarity.toFixed(2)}`;
}
