/**
 * The tuning of /remember: fusion weights, how many candidates each list brings, how far graph
 * expansion and replies reach, and how fast recency decays.
 */
import type { RelationType } from '../db/graph/graph.js';

export const DEFAULT_BUDGET = 1000;

/** The k of reciprocal rank fusion. */
export const K = 60;
/**
 * Weights of the fusion, chosen with bench/graph.js on LoCoMo: there the words carry recall (an
 * idea's own and those around it), the small local model's vectors add a point or two at a low
 * weight, and entity and topic lists only help when weighted low (a name in every other turn).
 */
export const DEFAULT_WEIGHTS = {
  lexical: 1,
  semantic: 0.3,
  span: 0.1,
  entity: 0.1,
  hyde: 0.3,
  filter: 1,
  /** How much the words matching elsewhere in an idea's topic add to its own match. */
  spanPrior: 0.4,
  /** How much confidence weighs: the score is multiplied by 1 - k + k x confidence. */
  confidence: 0.25,
  /** Share of the model's cosine floor a result found by meaning alone needs. */
  floor: 0.5,
  /** bm25() weights of an idea's own words, its turn's, the turns next to it, two away. */
  columns: [1, 1, 0.5, 0.25] as readonly number[],
};
export type ListWeights = typeof DEFAULT_WEIGHTS;
export const CANDIDATES = 200;
export const SPANS = 5;
export const PER_SPAN = 40;
export const EXACT_SCAN_MAX = 5000;
/** An entity that this share of all ideas name says little about any of them. */
export const COMMON_ENTITY_SHARE = 0.05;
export const EXPAND_FROM = 5;
export const FOLLOWED: readonly RelationType[] = [
  'supersedes',
  'builds_on',
  'answers',
  'contradicts',
];
export const HALF_LIFE_DAYS = 14;
/**
 * Matching turns whose reply is brought in, and what the reply's score is of theirs: the turn
 * said right after a match often holds the answer (a question and what was said back to it), so
 * it ranks right under the match it came from. (The turn before a match was measured on LoCoMo
 * too: it took the places of better matches.)
 */
export const REPLIES_OF = 5;
export const REPLY_SHARE = 0.9;
