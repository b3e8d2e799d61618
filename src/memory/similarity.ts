/**
 * When are two observations "the same memory"? Lexically for now: the Dice coefficient over
 * content words (lower-cased, stop words dropped, folded by the Porter stemmer FTS5 uses, so that
 * a word matched by the search is one word here too). Kept behind `textSimilarity` so that
 * embeddings can replace it without touching the callers.
 */
import { porterStem } from './porter.js';

/** Question words ask; they are not what is asked about (but a sentence with one asks). */
const QUESTION_WORDS: ReadonlySet<string> = new Set(
  'what who whom whose how which where why'.split(' '),
);

export const STOP_WORDS: ReadonlySet<string> = new Set([
  ...(
    'a an the and or but of to in on at by for with from into after before about as is are was ' +
    'were be been being it its this that these those then than so if when while do does did ' +
    'has have had will would should can could may might must not no very also just only ' +
    'again once always usually often sometimes there their they them he she we you i ' +
    // The possessive's "s" ("jellyfin's") is no word of its own.
    's'
  ).split(' '),
  ...QUESTION_WORDS,
]);

const WORD = /[a-z0-9]+/g;

/**
 * How many different words of a sentence carry what it says, its question words counted: the
 * memory graph's measure of whether a sentence is an idea ("Which model should we buy?" is).
 */
export function sayingWordCount(text: string): number {
  const words = new Set(text.toLowerCase().match(WORD) ?? []);
  let n = 0;
  for (const w of words) if (!STOP_WORDS.has(w) || QUESTION_WORDS.has(w)) n += 1;
  return n;
}

/** Content words of a text as written (lower-cased, stop words dropped), in order, once each. */
export function queryWords(text: string, max = 32): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const word of text.toLowerCase().match(WORD) ?? []) {
    if (STOP_WORDS.has(word) || seen.has(word)) continue;
    seen.add(word);
    out.push(word);
    if (out.length >= max) break;
  }
  return out;
}

/**
 * Share of the query's content words (folded to their stem) that the text contains: how much
 * of what was asked a lexical match actually covers, 0..1.
 */
export function queryCoverage(query: string, text: string): number {
  const wanted = contentWords(query);
  if (wanted.size === 0) return 0;
  const have = contentWords(text);
  let n = 0;
  for (const w of wanted) if (have.has(w)) n += 1;
  return n / wanted.size;
}

/** Texts whose content words are kept: relation detection compares each idea with dozens. */
const KEPT_WORDS = 4096;
const keptWords = new Map<string, ReadonlySet<string>>();

/** Words whose stem is kept: a search stems a few hundred candidates' texts. */
const KEPT_STEMS = 65_536;
const stemOf = new Map<string, string>();

function stem(word: string): string {
  let s = stemOf.get(word);
  if (s === undefined) {
    s = porterStem(word);
    if (stemOf.size >= KEPT_STEMS) stemOf.clear();
    stemOf.set(word, s);
  }
  return s;
}

/**
 * Content words of a text, folded to their Porter stems (as FTS5 folds them), read afresh: for a
 * text read once (a search's candidates, hundreds of them among many thousands).
 */
export function stemsOf(text: string): Set<string> {
  const out = new Set<string>();
  for (const word of text.toLowerCase().match(WORD) ?? []) {
    if (!STOP_WORDS.has(word)) out.add(stem(word));
  }
  return out;
}

/** Content words of a text as stemsOf reads them, kept for a text compared again and again. */
export function contentWords(text: string): ReadonlySet<string> {
  const kept = keptWords.get(text);
  if (kept) return kept;
  const out = stemsOf(text);
  if (keptWords.size >= KEPT_WORDS) keptWords.clear();
  keptWords.set(text, out);
  return out;
}

/** Similarity in 0..1; 1 for the same content words, 0 for none shared. */
export function textSimilarity(a: string, b: string): number {
  const wa = contentWords(a);
  const wb = contentWords(b);
  if (wa.size === 0 && wb.size === 0)
    return a.trim().toLowerCase() === b.trim().toLowerCase() ? 1 : 0;
  let shared = 0;
  for (const w of wa) if (wb.has(w)) shared += 1;
  return (2 * shared) / (wa.size + wb.size);
}

/** The most similar candidate at or above `threshold`, or null. Ties go to the first. */
export function mostSimilar<T extends { observation: string }>(
  candidates: readonly T[],
  text: string,
  threshold: number,
): { candidate: T; score: number } | null {
  let best: { candidate: T; score: number } | null = null;
  for (const candidate of candidates) {
    const score = textSimilarity(candidate.observation, text);
    if (score >= threshold && (best === null || score > best.score)) best = { candidate, score };
  }
  return best;
}
