/**
 * Similarity thresholds, calibrated per embedding model (a cosine of 0.8 means different things
 * to different models). `npm run bench` measures them on the paraphrase and distinct-fact sets of
 * bench/data/ops-retrieval.json; see the README's semantic recall section for the figures.
 */

export interface SimilarityThresholds {
  /** At or above: the same fact (reinforce instead of duplicating; memory_verify "confirmed"). */
  duplicate: number;
  /** At or above: the same topic (memory_verify "related"; a model may judge what is unsure). */
  related: number;
  /** At or above: the same fact when the two state the same values ("60 s", "a minute"). */
  agreeing: number;
  /** At or above: a change of the fact when the rules read one (another value, "moved off"). */
  changing: number;
  /** Below: no semantic evidence at all (a search result needs this or a lexical match). */
  floor: number;
}

/**
 * Universal Sentence Encoder lite (the local model). At 0.75 a paraphrased re-observation
 * reinforces about three times in four while pairs that differ in one fact merge at most one
 * time in twenty (bench/search-quality.js); lower merges distinct facts, higher duplicates more.
 * Paraphrases that restate a value in other words sit lower (0.55-0.6: "weekly" against "once a
 * week"), and a change said outright lower still ("was moved from opnsense to a vps", 0.49):
 * on the bench's development pairs, agreeing at 0.55 and changing at 0.45 decided nine more
 * pairs right and none wrong (0.5 for both: seven right, one wrong).
 */
const USE_LITE: SimilarityThresholds = {
  duplicate: 0.75,
  related: 0.6,
  agreeing: 0.55,
  changing: 0.45,
  floor: 0.35,
};
/** nomic-embed-text, seed 000's model and thresholds (the lower bars by the same margins). */
const NOMIC: SimilarityThresholds = {
  duplicate: 0.85,
  related: 0.6,
  agreeing: 0.55,
  changing: 0.45,
  floor: 0.45,
};
/** OpenAI's text-embedding-3 family runs lower: unrelated ops texts sit near 0.2. */
const OPENAI_TE3: SimilarityThresholds = {
  duplicate: 0.8,
  related: 0.55,
  agreeing: 0.5,
  changing: 0.4,
  floor: 0.3,
};
/** Lexical fallback (Dice over content words) when embeddings are off. */
export const LEXICAL: SimilarityThresholds = {
  duplicate: 0.5,
  related: 0.3,
  agreeing: 0.3,
  changing: 0.3,
  floor: 0,
};

export function thresholdsFor(model: string | null): SimilarityThresholds {
  if (model === null) return LEXICAL;
  const m = model.toLowerCase();
  if (m.startsWith('use-lite')) return USE_LITE;
  if (m.includes('nomic')) return NOMIC;
  if (m.includes('text-embedding-3')) return OPENAI_TE3;
  return NOMIC;
}
