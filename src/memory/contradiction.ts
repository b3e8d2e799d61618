/**
 * The contradiction rule: two observations about the same thing that state a different fact.
 * "takes 60 s to start" and "takes 5 minutes to start" are close in meaning (an embedding puts
 * them together) but one must replace the other, not reinforce it. The rule compares the facts
 * that can be read off reliably (facts.ts): durations (normalised to seconds, "a minute" and "three
 * minutes" included), how often something happens (hourly, nightly, "every 2 weeks", "twice a
 * day", normalised to a period), sizes, percentages, ports, versions, other numbers, opposite
 * settings (on/off, true/false, enabled/disabled) and negation.
 *
 * Paraphrases restate a fact with details left out and with their own sentence structure, so:
 * a kind of fact contradicts only when each side states a value the other does not (a detail
 * left out is not a contradiction), and a negation or an opposite word counts only when the
 * rest of the two sentences is nearly the same (otherwise "fails unless X" and "needs X" would
 * read as opposites), and a negation only of a verb both state ("never scheduled" against "stay
 * Pending" says the same in other words). bench/search-quality.js measures the rule on
 * paraphrases and on pairs that differ in exactly one fact.
 */

import { extractFacts, type Fact, type FactKind } from './facts.js';
import {
  negatesSharedPredicate,
  NEGATION_WORDS,
  restAlike,
  saysStopped,
  stoppedOfShared,
  words,
} from './negation.js';
import { porterStem } from './porter.js';
import {
  countedThing,
  differentJobs,
  differentSubjects,
  numberLabel,
  objectOf,
  subjectOf,
  versionName,
} from './subject.js';

export interface Contradiction {
  kind: FactKind;
  old: string;
  new: string;
}

// Opposite settings: the first word of each pair and its opposite.
const OPPOSITES: [string, string][] = [
  ['on', 'off'],
  ['true', 'false'],
  ['enabled', 'disabled'],
  ['enable', 'disable'],
  ['allowed', 'denied'],
  ['allow', 'deny'],
  ['yes', 'no'],
  ['open', 'closed'],
  ['always', 'never'],
  ['required', 'optional'],
  ['before', 'after'],
  ['up', 'down'],
];

/** How alike the rest of the two sentences must be for a negation or opposite to count. */
const SAME_SENTENCE = 0.6;

/** Opposites that say how often a verb holds: they oppose only said of the same verb. */
const OF_A_VERB = new Set(['always', 'never']);

/**
 * Whether `p` in `a` and `q` in `b` are said of the same verb, when they say how often one holds
 * ("never blocks" against "always blocks", not "always let through").
 */
function sameVerbAfter(a: string[], p: string, b: string[], q: string): boolean {
  if (!OF_A_VERB.has(p)) return true;
  const after = (ws: string[], w: string) => ws[ws.indexOf(w) + 1];
  const [x, y] = [after(a, p), after(b, q)];
  return x !== undefined && y !== undefined && porterStem(x) === porterStem(y);
}

/** An opposite setting: one sentence says `on` where the other says `off`, the rest alike. */
function oppositeSetting(oldText: string, newText: string): Contradiction | null {
  const a = words(oldText);
  const b = words(newText);
  // `key=true` and `key=false` are split so that the value is a word of its own.
  const split = (ws: string[]) => ws.flatMap((w) => w.split('='));
  const sa = new Set(split(a));
  const sb = new Set(split(b));
  for (const [x, y] of OPPOSITES) {
    for (const [p, q] of [
      [x, y],
      [y, x],
    ] as const) {
      if (sa.has(p) && !sa.has(q) && sb.has(q) && !sb.has(p)) {
        if (
          restAlike(split(a), split(b), new Set([p, q])) >= SAME_SENTENCE &&
          sameVerbAfter(a, p, b, q)
        ) {
          return { kind: 'negation', old: p, new: q };
        }
      }
    }
  }
  return null;
}

const VALUE_KINDS: FactKind[] = [
  'frequency',
  'time',
  'duration',
  'size',
  'percent',
  'port',
  'version',
  'number',
];

/**
 * The first kind of value both observations state with values of their own (a detail left out
 * is no change), and whether the values are of different things ("a scrub takes nine hours",
 * "a resilver takes two days"): then each is a fact of its own, neither a change nor the same.
 */
function valueChange(
  oldText: string,
  oldFacts: Fact[],
  newText: string,
  newFacts: Fact[],
): { change: Contradiction; otherSubject: boolean } | null {
  for (const kind of VALUE_KINDS) {
    const a = oldFacts.filter((f) => f.kind === kind);
    const b = newFacts.filter((f) => f.kind === kind);
    if (a.length === 0 || b.length === 0) continue;
    const av = new Set(a.map((f) => f.value));
    const bv = new Set(b.map((f) => f.value));
    if (![...av].some((v) => !bv.has(v)) || ![...bv].some((v) => !av.has(v))) continue;
    // A version is of the word it follows ("mongodb 6.0"); another value, of the sentence's
    // subject before its verb, read where the value that differs is, or of what the verb is
    // said of ("keeps the audit logs for 365 days" against "application logs for 30 days"); how
    // often, of a job however it is named.
    const [ta, tb] = [a[0]!.at, b[0]!.at];
    const named = kind === 'version' ? versionName(oldText, ta) : null;
    const sameThing = named !== null && named === versionName(newText, tb);
    const [sa, sb] = [subjectOf(oldText, ta), subjectOf(newText, tb)];
    const otherThing =
      kind === 'frequency'
        ? differentJobs(sa, sb)
        : differentSubjects(sa, sb) ||
          differentSubjects(objectOf(oldText, ta), objectOf(newText, tb));
    return {
      change: { kind, old: a.map((f) => f.text).join(', '), new: b.map((f) => f.text).join(', ') },
      otherSubject:
        (!sameThing && otherThing) ||
        (kind === 'number' && numbersApart(differing(oldText, a, bv), differing(newText, b, av))),
    };
  }
  return null;
}

/** A side's numbers that the other side does not state, with the text they are read in. */
interface Differing {
  text: string;
  facts: Fact[];
}

const differing = (text: string, facts: Fact[], other: ReadonlySet<string>): Differing => ({
  text,
  facts: facts.filter((f) => !other.has(f.value)),
});

/**
 * Whether the numbers that differ are of different things: they count different things ("lists
 * 0 torrents" against "runs at most 5 downloads"; a number that counts nothing says nothing
 * either way), or they are named by different words before them ("uid 999" against "pgbouncer
 * on 6432", "max_connections is 100" against "restore; a 16 image": verbs and words that name
 * nothing are passed over, so "sonarr keeps 5" is named by sonarr; every number must be named).
 */
function numbersApart(a: Differing, b: Differing): boolean {
  const apart = (name: (d: Differing, f: Fact) => string | null, everyNamed: boolean) => {
    const names = (d: Differing) => {
      const named = d.facts.map((f) => name(d, f));
      if (everyNamed && named.includes(null)) return new Set<string>();
      return new Set(named.filter((n): n is string => n !== null));
    };
    const na = names(a);
    const nb = names(b);
    return na.size > 0 && nb.size > 0 && ![...na].some((n) => nb.has(n));
  };
  return (
    apart((d, f) => countedThing(d.text, f.at, f.text.length), false) ||
    apart((d, f) => numberLabel(d.text, f.at), true)
  );
}

/**
 * A value the new observation states of another thing than the old one states its value of:
 * two facts, to be kept apart however close their words or meaning.
 */
export function valueOfOtherSubject(oldText: string, newText: string): Contradiction | null {
  const values = valueChange(oldText, extractFacts(oldText), newText, extractFacts(newText));
  return values?.otherSubject ? values.change : null;
}

/**
 * The first fact the new observation states differently from the old one, or null. A kind counts
 * only when both observations state it (a missing detail is not a contradiction), and when the
 * sets of values differ (the same values in another order agree).
 */
export function findContradiction(oldText: string, newText: string): Contradiction | null {
  const oldFacts = extractFacts(oldText);
  const newFacts = extractFacts(newText);
  const values = valueChange(oldText, oldFacts, newText, newFacts);
  return contradictionOf(oldText, oldFacts, newText, newFacts, values);
}

/** What comparing two observations reads, each fact read once. */
export interface FactComparison {
  /** A value of another thing (valueOfOtherSubject): then no contradiction is read. */
  otherSubject: Contradiction | null;
  /** The first fact stated differently (findContradiction). */
  contradiction: Contradiction | null;
}

/**
 * valueOfOtherSubject and, unless it finds one, findContradiction, reading each text's facts
 * once: what a re-observation (reobservation.ts) and memory_verify ask of every close memory.
 */
export function compareFacts(oldText: string, newText: string): FactComparison {
  const oldFacts = extractFacts(oldText);
  const newFacts = extractFacts(newText);
  const values = valueChange(oldText, oldFacts, newText, newFacts);
  if (values?.otherSubject) return { otherSubject: values.change, contradiction: null };
  return {
    otherSubject: null,
    contradiction: contradictionOf(oldText, oldFacts, newText, newFacts, values),
  };
}

function contradictionOf(
  oldText: string,
  oldFacts: Fact[],
  newText: string,
  newFacts: Fact[],
  values: ReturnType<typeof valueChange>,
): Contradiction | null {
  // The same setting key with another value contradicts, whatever else the sentences say.
  const settings = (facts: Fact[]) =>
    new Map(
      facts.filter((f) => f.kind === 'setting').map((f) => f.value.split('=') as [string, string]),
    );
  const oldSettings = settings(oldFacts);
  for (const [key, value] of settings(newFacts)) {
    const before = oldSettings.get(key);
    if (before !== undefined && before !== value) {
      return { kind: 'setting', old: `${key}=${before}`, new: `${key}=${value}` };
    }
  }
  if (values && !values.otherSubject) return values.change;
  const opposite = oppositeSetting(oldText, newText);
  if (opposite) return opposite;
  const oldNeg = oldFacts.some((f) => f.kind === 'negation');
  const newNeg = newFacts.some((f) => f.kind === 'negation');
  const change = {
    kind: 'negation' as const,
    old: oldNeg ? 'negated' : 'affirmed',
    new: newNeg ? 'negated' : 'affirmed',
  };
  // One says a fact the other states stopped holding ("stopped using redis" against "uses
  // redis"), however it is worded; not against a sentence that denies it already.
  const oldStopped = saysStopped(oldText);
  const newStopped = saysStopped(newText);
  if (oldStopped !== newStopped) {
    const [stopped, other, otherNeg] = oldStopped
      ? [oldText, newText, newNeg]
      : [newText, oldText, oldNeg];
    if (!otherNeg && stoppedOfShared(stopped, other)) {
      return {
        kind: 'negation',
        old: oldStopped ? 'negated' : 'affirmed',
        new: newStopped ? 'negated' : 'affirmed',
      };
    }
  }
  const alike = restAlike(words(oldText), words(newText), NEGATION_WORDS);
  const negated = oldNeg ? oldText : newText;
  const affirmed = oldNeg ? newText : oldText;
  if (oldNeg !== newNeg && alike >= SAME_SENTENCE && negatesSharedPredicate(negated, affirmed))
    return change;
  return null;
}
