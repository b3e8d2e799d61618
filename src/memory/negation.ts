/**
 * Reading a negation: what it negates, and whether a sentence says a fact stopped holding ("no
 * longer", "stopped using", "not ... anymore"). The contradiction rule (contradiction.ts) counts
 * a negation as a change only of what both sentences state; a negation said in other words
 * ("does not spin down its disks" against "keeps its disks spinning") is the same fact.
 */
import { NEGATION } from './facts.js';
import { porterStem } from './porter.js';
import { NAMES_NOTHING } from './subject.js';

/** Words of a sentence, lower-cased, for comparing what surrounds a negation or opposite. */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9_.=-]+/g) ?? [];
}

/** Dice coefficient of the two word sets with these words left out. */
export function restAlike(a: string[], b: string[], leaveOut: ReadonlySet<string>): number {
  const wa = new Set(a.filter((w) => !leaveOut.has(w)));
  const wb = new Set(b.filter((w) => !leaveOut.has(w)));
  if (wa.size + wb.size === 0) return 1;
  let shared = 0;
  for (const w of wa) if (wb.has(w)) shared += 1;
  return (2 * shared) / (wa.size + wb.size);
}

/** The words of a negation, left out when comparing the rest of two sentences. */
export const NEGATION_WORDS = new Set([
  'not',
  'never',
  'no',
  'cannot',
  "can't",
  'cant',
  "won't",
  'wont',
  "doesn't",
  'doesnt',
  "don't",
  'dont',
  "isn't",
  'isnt',
  "aren't",
  "wasn't",
  "didn't",
  'without',
  'only',
]);

/** Words between a negation and what it negates ("is not yet able to start"). */
const BEFORE_PREDICATE = new Set([
  'a',
  'able',
  'actually',
  'always',
  'am',
  'an',
  'any',
  'are',
  'be',
  'been',
  'being',
  'did',
  'do',
  'does',
  'ever',
  'get',
  'gets',
  'got',
  'had',
  'has',
  'have',
  'is',
  'longer',
  'really',
  'still',
  'the',
  'to',
  'was',
  'were',
  'yet',
]);

/**
 * A fact said to have stopped holding: "no longer", "stopped <doing>", and "not" (or "-n't")
 * with "anymore" later in its clause. What follows is the verb of the fact that stopped.
 */
const STOPPED =
  /\bno longer\b|\bstopped\b(?=\s+\w+ing\b)|\b(?:not|never)\b(?=[^;:.]*\bany\s?more\b)|n't\b(?=[^;:.]*\bany\s?more\b)/;

/** Whether the sentence says a fact stopped holding (STOPPED). */
export function saysStopped(text: string): boolean {
  return STOPPED.test(text.toLowerCase());
}

/** Stems of the words of a text, in order. */
const stemsOf = (text: string) => words(text).map(porterStem);

/**
 * Whether one negation negates a predicate `other` states: the first word after it that is not
 * an auxiliary, said in `other` too, and followed there within three words by the word that
 * follows it here (its particle or object: "spin down", "import files"), when there is one. True
 * when the negation ends the sentence (nothing to compare).
 */
function negatesShared(after: string, other: string[]): boolean {
  const said = words(after).filter((w) => !BEFORE_PREDICATE.has(w));
  const predicate = said[0];
  if (predicate === undefined) return true;
  const next = said.slice(1).find((w) => !NAMES_NOTHING.has(w));
  const p = porterStem(predicate);
  const n = next === undefined ? null : porterStem(next);
  return other.some((w, i) => w === p && (n === null || other.slice(i + 1, i + 4).includes(n)));
}

/**
 * Whether every negation in `negated` negates a predicate `other` states (see negatesShared):
 * "no longer depends on redis" negates "depends on redis", "never scheduled" does not negate
 * "stay Pending", and "pods without limits are not scheduled" does not negate "nodes refuse pods
 * that lack limits" (its "not" negates a verb the other does not state). "no longer" says a
 * change whatever verb follows it.
 */
export function negatesSharedPredicate(negated: string, other: string): boolean {
  const lower = negated.toLowerCase();
  const all = new RegExp(NEGATION.source, 'gi');
  const found = [...lower.matchAll(all)];
  if (found.length === 0 || found.some((m) => m[0] === 'no longer')) return true;
  const stems = stemsOf(other);
  return found.every((m) => negatesShared(lower.slice(m.index + m[0].length), stems));
}

/**
 * Whether the fact `stopped` says stopped holding (STOPPED) is one `other` states: a word of its
 * clause after the verb ("no longer depends on prowlarr; ..." against "gets its indexers from
 * prowlarr", "stopped using redis for locking" against "uses redis for file locking"). Such a
 * sentence is a change of that fact however differently the rest is worded.
 */
export function stoppedOfShared(stopped: string, other: string): boolean {
  const lower = stopped.toLowerCase();
  const m = STOPPED.exec(lower);
  if (!m) return false;
  const clause = lower.slice(m.index + m[0].length).split(/[;:,.]\s|\b(?:since|because)\b/)[0]!;
  const said = words(clause)
    .slice(1)
    .filter(
      (w) => !BEFORE_PREDICATE.has(w) && !NAMES_NOTHING.has(w) && !['anymore', 'more'].includes(w),
    );
  const stems = new Set(stemsOf(other));
  return said.some((w) => stems.has(porterStem(w)));
}
