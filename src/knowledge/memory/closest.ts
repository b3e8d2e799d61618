/**
 * The one comparison behind reinforce, supersede and create: the active memory of the same
 * service closest to a text, by cosine where both have a vector from the current model,
 * lexically otherwise (each measure with its own thresholds).
 */
import type { MemoryRow } from '../../db/index.js';
import { dot, fromBlob, textSimilarity } from '../../memory/index.js';
import type { MemoryContext } from './context.js';

/** What decides between reinforce, supersede and create, for one candidate memory. */
export interface Closest {
  memory: MemoryRow;
  similarity: number;
  measure: 'cosine' | 'lexical';
  duplicate: number;
  related: number;
}

export function closest(
  ctx: MemoryContext,
  service: string | null,
  scope: string,
  text: string,
  vector: Float32Array | null,
  maxId?: number,
): Closest | null {
  const { memories, search, embedding, policy } = ctx;
  const pool = memories.activeOfService(service, scope, 2000, maxId, ctx.instance);
  const vectors =
    vector && embedding.model
      ? search.vectorsOf(
          pool.map((m) => m.id),
          embedding.model,
        )
      : null;
  const t = embedding.thresholds;
  let best: Closest | null = null;
  let bestScore = -Infinity;
  for (const memory of pool) {
    const blob = vectors?.get(memory.id);
    const c: Closest = blob
      ? {
          memory,
          similarity: dot(vector!, fromBlob(blob)),
          measure: 'cosine',
          duplicate: t.duplicate,
          related: t.related,
        }
      : {
          memory,
          similarity: textSimilarity(memory.observation, text),
          measure: 'lexical',
          duplicate: policy.similarityThreshold,
          related: policy.similarityThreshold * 0.6,
        };
    // Compared by how far past its own "related" threshold each one is.
    const score = c.similarity - c.related;
    if (score > bestScore) {
      best = c;
      bestScore = score;
    }
  }
  return best;
}
