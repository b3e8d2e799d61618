/**
 * Reading a negation: what it negates, and whether a sentence says a fact stopped holding ("no
 * longer", "stopped using", "not ... anymore"). The contradiction rule (contradiction.ts) counts
 * a negation as a change only of what both sentences state; a negation said in other words
 * ("does not spin down its disks" against "keeps its disks spinning") is the same fact.
 */
import { NEGATION } from './facts.js';
import { porterStem } from './porter.js';
import { STOP_WORDS } from './similarity.js';
import { clauseBefore, NAMES_NOTHING } from './subject.js';

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
  /\bno longer\b|\bstopped\b(?=\s+(?:\w+\s+)?\w+ing\b)|\b(?:not|never)\b(?=[^;:.]*\bany\s?more\b)|n't\b(?=[^;:.]*\bany\s?more\b)/;
/**
 * A fact said to have been replaced: "moved off nas01", "switched from http-01", "replaced zha",
 * "instead of redis". What follows is what was there before.
 */
const REPLACED =
  /\b(?:moved|switched|migrated)\s+(?:away\s+)?(?:off|from|out\s+of)\b|\breplaced\b(?!\s+by\b)|\b(?:instead|in\s+place)\s+of\b/;
/**
 * A fact said to have been ended, in the passive: "the forward zone was removed", "anonymous
 * access was turned off", "the openvpn server was shut down". What ended is said before it.
 */
const ENDED =
  /\b(?:was|were|got|has\s+been|have\s+been)\s+(?:disabled|removed|dropped|turned\s+off|switched\s+off|shut\s+down|decommissioned|retired|replaced|uninstalled)\b/;

/**
 * A thing said to have moved: "the cert sync script was moved to a systemd timer", "frigate's
 * detector moved to the coral tpu". What moved is said before it, where it went after.
 */
const MOVED = /\b(?:moved|migrated|switched)\s+(?:over\s+)?to\b|\b(?:is|are|was|were)\s+gone\b/;

/** Whether the sentence says a fact stopped holding (stopped, replaced, ended or moved). */
export function saysStopped(text: string): boolean {
  const lower = text.toLowerCase();
  return [STOPPED, REPLACED, ENDED, MOVED].some((r) => r.test(lower));
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
 * Whether the fact `stopped` says stopped holding (saysStopped) is one `other` states: a word
 * of its clause after the verb ("no longer depends on prowlarr; ..." against "gets its indexers
 * from prowlarr", "stopped using redis for locking" against "uses redis for file locking"),
 * after the replacing verb ("moved off nas01" against "runs on nas01"), before the passive
 * ("the quad9 forward zone was removed" against "forwards all queries to quad9") or before a
 * move the other does not already state ("the sync script was moved to a systemd timer"
 * against "the sync script runs from root's crontab"). Such a sentence is a change of that fact
 * however differently the rest is worded.
 */
export function stoppedOfShared(stopped: string, other: string): boolean {
  const lower = stopped.toLowerCase();
  const clauseAfter = (at: number) => lower.slice(at).split(/[;:,.]\s|\b(?:since|because)\b/)[0]!;
  // What is said of, in words that name something ("i", "we" and the like name no fact).
  const said = (ws: string[]) =>
    ws.filter(
      (w) =>
        !BEFORE_PREDICATE.has(w) &&
        !NAMES_NOTHING.has(w) &&
        !STOP_WORDS.has(w) &&
        !['anymore', 'more'].includes(w),
    );
  const stems = new Set(stemsOf(other));
  const shared = (ws: string[]) =>
    said(ws).some((w) => stems.has(porterStem(w.replace(/'s$/, ''))));
  const stop = STOPPED.exec(lower);
  // The verb right after "no longer" is the fact's own ("depends"): what it is of follows.
  if (stop && shared(words(clauseAfter(stop.index + stop[0].length)).slice(1))) return true;
  const replaced = REPLACED.exec(lower);
  if (replaced && shared(words(clauseAfter(replaced.index + replaced[0].length)))) return true;
  const ended = ENDED.exec(lower);
  if (ended && shared(clauseBefore(lower, ended.index))) return true;
  // Moved, unless the other sentence already says where to ("lives on db1" beside "moved to db1").
  const moved = MOVED.exec(lower);
  return (
    moved !== null &&
    shared(clauseBefore(lower, moved.index)) &&
    !shared(words(clauseAfter(moved.index + moved[0].length)))
  );
}
