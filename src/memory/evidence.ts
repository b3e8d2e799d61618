/**
 * How much of a query a lexical match covers, in the terms the full-text index matched it by:
 * words folded by FTS5's own Porter stemmer, stop words (question words and the possessive's
 * "s" among them) dropped, each query word weighing its idf in the store, so that matching the
 * rare word of a question counts for more than matching the name said in every turn.
 */
import { porterStem } from './porter.js';
import { STOP_WORDS, stemsOf } from './similarity.js';

/**
 * When, not what: month and weekday names and years. A question says when something happened
 * ("in October 2023") while what it remembers rarely holds the date, so these words weigh
 * nothing here: they would make every answer cover less of the question and the question look
 * like one about something the store does not hold. (Other numbers stay: a port or an error code
 * is what an ops question is about.)
 */
const WHEN =
  /^(?:(?:19|20)\d\d|jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|(?:mon|tues|wednes|thurs|fri|satur|sun)day)$/;

export interface QueryWeights {
  /** Each query word's stem and its weight. */
  weights: Map<string, number>;
  /** Share of the query's weight in words some memory holds: is the query about this store? */
  known: number;
}

/**
 * Each query word's weight: BM25's idf, ln(1 + (N - n + 0.5) / (n + 0.5)), of the n of the N
 * memories that hold it (a word in none weighs the most); dates weigh nothing (WHEN).
 */
export function queryWeights(
  words: readonly string[],
  found: { rows: number; counts: ReadonlyMap<string, number> },
): QueryWeights {
  const weights = new Map<string, number>();
  const held = new Set<string>();
  const rows = Math.max(found.rows, 1);
  for (const word of words) {
    if (STOP_WORDS.has(word) || WHEN.test(word)) continue;
    const n = Math.min(found.counts.get(word) ?? 0, rows);
    const idf = Math.log(1 + (rows - n + 0.5) / (n + 0.5));
    const s = porterStem(word);
    weights.set(s, Math.max(weights.get(s) ?? 0, idf));
    if (n > 0) held.add(s);
  }
  let total = 0;
  let known = 0;
  for (const [s, w] of weights) {
    total += w;
    if (held.has(s)) known += w;
  }
  return { weights, known: total === 0 ? 0 : known / total };
}

/**
 * Share of the query the text holds: of its weight, or of its words (a tool call's paths and
 * flags weigh the most yet say least) counting one word more (so that one word of two is not
 * half of a question), whichever is more, 0..1.
 */
export function weightedCoverage(weights: ReadonlyMap<string, number>, text: string): number {
  let total = 0;
  let have = 0;
  let words = 0;
  const stems = stemsOf(text);
  for (const [s, w] of weights) {
    total += w;
    if (stems.has(s)) {
      have += w;
      words += 1;
    }
  }
  return total === 0 ? 0 : Math.max(have / total, words / (weights.size + 1));
}
