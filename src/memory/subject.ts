/**
 * What a value is stated of, for the contradiction rule: "a scrub of the tank pool takes nine
 * hours" and "a resilver of a tank disk takes two days" state durations of different things, so
 * the second is a fact of its own, not a change of the first. The subject is read off as the
 * words of the value's clause before its verb or the value. A part-of-speech tagger (such as
 * `compromise` on npm) would find it in more sentences; the short notes an agent writes put the
 * subject first, and this rule runs on every observation without a tagger's lexicon to load. It
 * says "different" only when both subjects are there and their heads are words the other
 * subject does not hold.
 */
import { porterStem } from './porter.js';

/** Words that end a subject: the verbs that state an ops value, and modal verbs. */
const ENDS_SUBJECT = new Set([
  'is',
  'are',
  'was',
  'were',
  'be',
  'takes',
  'take',
  'took',
  'needs',
  'need',
  'runs',
  'run',
  'keeps',
  'keep',
  'has',
  'have',
  'had',
  'uses',
  'limits',
  'requires',
  'lasts',
  'holds',
  'gets',
  'listens',
  'allows',
  'expires',
  'waits',
  'polls',
  'stays',
  'reaches',
  'now',
  'can',
  'will',
  'must',
  'should',
  'may',
]);

/**
 * Words that say nothing of what a sentence is about: articles, prepositions, pronouns (a
 * pronoun points elsewhere), quantifiers.
 */
export const NAMES_NOTHING: ReadonlySet<string> = new Set([
  'any',
  'more',
  'if',
  'it',
  'they',
  'there',
  'then',
  'a',
  'an',
  'the',
  'of',
  'its',
  'their',
  'this',
  'that',
  'these',
  'those',
  'for',
  'on',
  'in',
  'at',
  'to',
  'by',
  'with',
  'from',
  'each',
  'every',
  'all',
  'about',
  'and',
]);

/** Where a clause starts: after a punctuation mark or a word that joins clauses. */
const CLAUSE_START =
  /[;,:.]\s|\b(?:so|but|and|because|while|when|whereas|after|before|until|once)\s/gi;

/** The words of the clause that states what is at `valueAt`, before it, lower-cased. */
export function clauseBefore(text: string, valueAt: number): string[] {
  const before = text.slice(0, valueAt);
  let start = 0;
  // A joining word right before the value joins nothing: "bans after 3 failures".
  for (const m of before.matchAll(CLAUSE_START)) {
    if (/\w/.test(before.slice(m.index + m[0].length))) start = m.index + m[0].length;
  }
  return (
    before
      .slice(start)
      .toLowerCase()
      .match(/[a-z0-9_.-]+(?:'s)?/g) ?? []
  );
}

const stemmed = (words: string[]) =>
  words.filter((w) => !NAMES_NOTHING.has(w)).map((w) => porterStem(w.replace(/'s$/, '')));

/**
 * The subject's words (stems, in order) of the clause that states the value at `valueAt`: from
 * the clause's start ("..., so the unifi database is pinned to 4.4") to its verb or the value;
 * [] when there are none.
 */
export function subjectOf(text: string, valueAt: number): string[] {
  const words = clauseBefore(text, valueAt);
  const verb = words.findIndex((w) => ENDS_SUBJECT.has(w));
  return stemmed(verb === -1 ? words : words.slice(0, verb));
}

/** Words that join a value to what it is of ("keeps the audit logs for 365 days"). */
const JOINS_VALUE = new Set(['for', 'of', 'after', 'at', 'to', 'in', 'within', 'under', 'over']);
/** Words that hedge a value ("for about 30 days"). */
const HEDGES = new Set(['about', 'around', 'roughly', 'approximately', 'nearly', 'almost']);

/**
 * What the verb before the value is said of (stems, in order), when a preposition joins the
 * value to it: "loki keeps the audit logs for 365 days" keeps the audit logs. [] when no verb of
 * ENDS_SUBJECT comes before the value, or nothing joins them ("uses cloudflare 1.1.1.1": the
 * value is what is used, not of it).
 */
export function objectOf(text: string, valueAt: number): string[] {
  const words = clauseBefore(text, valueAt).filter((w) => !HEDGES.has(w));
  const verb = words.findIndex((w) => ENDS_SUBJECT.has(w));
  if (verb === -1 || !JOINS_VALUE.has(words.at(-1) ?? '')) return [];
  return stemmed(words.slice(verb + 1).filter((w) => !ENDS_SUBJECT.has(w)));
}

/**
 * What names a version: the word right before it ("mongodb 6.0"), stemmed; null when that word is
 * a verb ("runs v3": the version is then of the sentence's subject).
 */
export function versionName(text: string, at: number): string | null {
  const word = /([a-z0-9_.-]+)\s*$/i.exec(text.slice(0, at))?.[1]?.toLowerCase();
  return word && !ENDS_SUBJECT.has(word) ? porterStem(word) : null;
}

/**
 * What a bare number that counts nothing is named by: the nearest word before it that names
 * something ("uid 999", "pgbouncer on 6432"), stemmed; null when none does.
 */
export function numberLabel(text: string, at: number): string | null {
  const words =
    text
      .slice(0, at)
      .toLowerCase()
      .match(/[a-z][a-z0-9_-]*/g) ?? [];
  for (let i = words.length - 1; i >= 0; i -= 1) {
    const word = words[i]!;
    if (NAMES_NOTHING.has(word) || ENDS_SUBJECT.has(word)) continue;
    return porterStem(word);
  }
  return null;
}

/**
 * What a bare number counts: the word right after it ("5 downloads", "lists 0 torrents"),
 * stemmed; null when none does ("is 300", "on 6432 in ...", "2-4 minutes").
 */
export function countedThing(text: string, at: number, length: number): string | null {
  const word = /^\s+([a-z][a-z_-]*)/i.exec(text.slice(at + length))?.[1]?.toLowerCase();
  if (!word || NAMES_NOTHING.has(word) || ENDS_SUBJECT.has(word)) return null;
  return porterStem(word);
}

/** Words that name when a job runs, not which job: "the poll interval", "its cron". */
const OF_SCHEDULE = new Set(
  ['interval', 'schedule', 'frequency', 'cron', 'timer', 'cadence'].map(porterStem),
);

/**
 * Whether two subjects name different jobs, when the value is how often one runs: a job is named
 * in many ways ("restic backs up the home directories", "restic backups of the home dirs", "the
 * update interval of ddclient"), so only subjects that share no word past the words they start
 * with alike do, neither naming its schedule.
 */
export function differentJobs(a: string[], b: string[]): boolean {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
  const restB = new Set(b.slice(i));
  if ([...a, ...b].some((w) => OF_SCHEDULE.has(w))) return false;
  return differentSubjects(a, b) && !a.slice(i).some((w) => restB.has(w));
}

/**
 * Whether two subjects name different things: after the words they start with alike ("jellyfin
 * library scan" against "jellyfin restart"), each head is a word the other does not hold. A
 * missing subject ("takes 60 s to start") is no evidence of a different one.
 */
export function differentSubjects(a: string[], b: string[]): boolean {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
  const restA = a.slice(i);
  const restB = b.slice(i);
  if (restA.length === 0 || restB.length === 0) return false;
  return !restB.includes(restA[0]!) && !restA.includes(restB[0]!);
}
