/**
 * The one comparison behind reinforce, supersede and create: the active memory of the same
 * service closest to a text, by cosine where both have a vector from the current model,
 * lexically otherwise (each measure with its own thresholds).
 */
import type { MemoryRow } from '../../db/index.js';
import { dot, fromBlob, type ReobservationBars, textSimilarity } from '../../memory/index.js';
import type { MemoryContext } from './context.js';

/** What decides between reinforce, supersede and create, for one candidate memory. */
export interface Closest extends ReobservationBars {
  memory: MemoryRow;
  similarity: number;
  measure: 'cosine' | 'lexical';
}

/** Lexically (Dice over content words), only the policy's threshold and its "related" share. */
const lexicalBars = (duplicate: number): ReobservationBars => {
  const related = duplicate * 0.6;
  return { duplicate, related, agreeing: related, changing: related };
};

export async function closest(
  ctx: MemoryContext,
  service: string | null,
  scope: string,
  text: string,
  vector: Float32Array | null,
  maxId?: number,
): Promise<Closest | null> {
  return (await nearest(ctx, service, scope, text, vector, 1, maxId))[0] ?? null;
}

/**
 * The `n` active memories of the service closest to a text, closest first: compared by how far
 * past its own "related" threshold each one is (each measure has its own thresholds).
 */
export async function nearest(
  ctx: MemoryContext,
  service: string | null,
  scope: string,
  text: string,
  vector: Float32Array | null,
  n: number,
  maxId?: number,
): Promise<Closest[]> {
  const { memories, search, embedding, policy } = ctx;
  // Read awaited: on PostgreSQL the event loop goes on while the server answers.
  const pool = await memories.activeOfServiceAwaited(service, scope, 2000, maxId, ctx.instance);
  const vectors =
    vector && embedding.model
      ? await search.vectorsOfAwaited(
          pool.map((m) => m.id),
          embedding.model,
        )
      : null;
  const t = embedding.thresholds;
  /** The best so far, by score (similarity past "related"), best first; at most n. */
  const best: { c: Closest; score: number }[] = [];
  for (const memory of pool) {
    const blob = vectors?.get(memory.id);
    const c: Closest = blob
      ? {
          memory,
          similarity: dot(vector!, fromBlob(blob)),
          measure: 'cosine',
          duplicate: t.duplicate,
          related: t.related,
          agreeing: t.agreeing,
          changing: t.changing,
        }
      : {
          memory,
          similarity: textSimilarity(memory.observation, text),
          measure: 'lexical',
          ...lexicalBars(policy.similarityThreshold),
        };
    const score = c.similarity - c.related;
    if (!(score > -Infinity)) continue;
    if (best.length === n && score <= best[n - 1]!.score) continue;
    let at = best.length;
    while (at > 0 && best[at - 1]!.score < score) at -= 1;
    best.splice(at, 0, { c, score });
    if (best.length > n) best.pop();
  }
  return best.map((b) => b.c);
}
