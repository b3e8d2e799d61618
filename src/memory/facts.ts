/**
 * The facts an observation states, read off its text for the contradiction rule
 * (contradiction.ts): durations (normalised to seconds, "a minute" and "three minutes"
 * included), how often something happens (hourly, nightly, "every 2 weeks", "twice a day",
 * normalised to a period), sizes, percentages, ports, versions, other numbers, settings
 * (`KEY=value`) and whether it negates.
 */

export type FactKind =
  | 'setting'
  | 'frequency'
  | 'duration'
  | 'size'
  | 'percent'
  | 'port'
  | 'version'
  | 'number'
  | 'negation';

export interface Fact {
  kind: FactKind;
  /** Normalised value: seconds (a period for a frequency), bytes, percent, port, version, number. */
  value: string;
  /** The text it was read from, for the explanation. */
  text: string;
  /** Where that text starts in the observation. */
  at: number;
}

const DURATION_UNITS: Record<string, number> = {
  ms: 0.001,
  millisecond: 0.001,
  milliseconds: 0.001,
  s: 1,
  sec: 1,
  secs: 1,
  second: 1,
  seconds: 1,
  m: 60,
  min: 60,
  mins: 60,
  minute: 60,
  minutes: 60,
  h: 3600,
  hr: 3600,
  hrs: 3600,
  hour: 3600,
  hours: 3600,
  d: 86_400,
  day: 86_400,
  days: 86_400,
  week: 604_800,
  weeks: 604_800,
};

/** Periods of the words that say how often, in seconds. */
const PERIOD_WORDS: Record<string, number> = {
  hourly: 3600,
  daily: 86_400,
  nightly: 86_400,
  weekly: 604_800,
  fortnightly: 1_209_600,
  biweekly: 1_209_600,
  monthly: 2_592_000,
  quarterly: 7_776_000,
  yearly: 31_536_000,
  annually: 31_536_000,
};

/** The unit of "every night", "once a month": as DURATION_UNITS, with the calendar's own. */
const PERIOD_UNITS: Record<string, number> = {
  ...DURATION_UNITS,
  night: 86_400,
  morning: 86_400,
  evening: 86_400,
  month: 2_592_000,
  months: 2_592_000,
  quarter: 7_776_000,
  year: 31_536_000,
  years: 31_536_000,
  // "every Sunday", "every Sunday night"
  monday: 604_800,
  tuesday: 604_800,
  wednesday: 604_800,
  thursday: 604_800,
  friday: 604_800,
  saturday: 604_800,
  sunday: 604_800,
};

const SIZE_UNITS: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
  k: 1e3,
  m: 1e6,
  g: 1e9,
};

/** Counts written as words, as models and people write them ("twenty minutes"). */
export const NUMBER_WORDS: Readonly<Record<string, number>> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  ninety: 90,
  hundred: 100,
};

// `KEY=value` settings: the same key with another value is another fact.
const SETTING = /\b([a-z_][a-z0-9_.]*)\s*=\s*([^\s;,]+)/gi;
const SHORT_VERSION = /\bv(\d+)\b/gi;
const VERSION = /\bv?(\d+\.\d+(?:\.\d+){0,2}(?:-[0-9a-z.]+)?)\b/gi;
const PORT = /(?:\bports?\s*:?\s*|:)(\d{2,5})\b/gi;
const PERCENT = /(\d+(?:\.\d+)?)\s*(?:%|percent\b)/gi;
/** A number, with thousands separated by commas or not ("1,000" is 1000, not 1 and 0). */
const DIGITS = String.raw`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?`;
const QUANTITY = new RegExp(`(${DIGITS})(?:\\s*|-)([a-z]+)\\b`, 'gi');
/** The words of NUMBER_WORDS as a regular expression's alternatives. */
const COUNT_WORDS = Object.keys(NUMBER_WORDS).join('|');
const WORD_QUANTITY = new RegExp(`\\b(${COUNT_WORDS})(?:\\s+|-)([a-z]+)\\b`, 'gi');
const NUMBER = new RegExp(`\\b(?:${DIGITS})\\b`, 'g');
/** "1,000" as 1000. */
const numberOf = (digits: string) => Number(digits.replaceAll(',', ''));
const PERIOD_WORD = new RegExp(`\\b(${Object.keys(PERIOD_WORDS).join('|')})\\b`, 'gi');
// "every night", "each hour", "every 2 weeks", "every other day", "every fifteen minutes",
// "every couple of hours", "every half hour"
const EVERY = new RegExp(
  `\\b(?:every|each)\\s+(?:(other)\\s+|(\\d+(?:\\.\\d+)?|${COUNT_WORDS}|couple\\s+of|half(?:\\s+an?)?)\\s+)?([a-z]+)\\b`,
  'gi',
);
/** "every couple of hours", "every half hour": the counts written as words of their own. */
const EVERY_COUNTS: Record<string, number> = { couple: 2, half: 0.5 };
// "twice weekly", "3 times daily"
const TIMES_PERIOD = new RegExp(
  `\\b(once|twice|thrice|(\\d+|[a-z]+)\\s+times)\\s+(${Object.keys(PERIOD_WORDS).join('|')})\\b`,
  'gi',
);
// "once a day", "twice an hour", "3 times a week", "three times per month"
const TIMES_PER =
  /\b(once|twice|thrice|(\d+|[a-z]+)\s+times)\s+(?:a|an|per|each|every)\s+([a-z]+)\b/gi;
const TIMES: Record<string, number> = { once: 1, twice: 2, thrice: 3 };
/** A negation ("not", "never", "no longer"...). */
export const NEGATION =
  /\b(?:not|never|no longer|cannot|can't|cant|won't|wont|doesn't|doesnt|don't|dont|isn't|isnt|aren't|wasn't|didn't|without|only|unable to|no)\b/i;

/** "3" or "three" as a number; null for another word. */
function countOf(text: string): number | null {
  if (/^\d/.test(text)) return Number(text);
  return Object.hasOwn(NUMBER_WORDS, text) ? NUMBER_WORDS[text]! : null;
}

/** The facts an observation states, in order of appearance. */
export function extractFacts(text: string): Fact[] {
  const lower = text.toLowerCase();
  const facts: Fact[] = [];
  const taken: [number, number][] = [];
  const overlaps = (start: number, end: number) => taken.some(([s, e]) => start < e && end > s);
  const take = (m: RegExpExecArray, kind: FactKind, value: string) => {
    const start = m.index;
    const end = m.index + m[0].length;
    if (overlaps(start, end)) return;
    taken.push([start, end]);
    facts.push({ kind, value, text: m[0].trim(), at: start });
  };
  for (const m of lower.matchAll(SETTING)) take(m, 'setting', `${m[1]}=${m[2]}`);
  for (const m of lower.matchAll(VERSION)) take(m, 'version', m[1]!);
  for (const m of lower.matchAll(SHORT_VERSION)) take(m, 'version', m[1]!);
  for (const m of lower.matchAll(PORT)) take(m, 'port', String(Number(m[1])));
  for (const m of lower.matchAll(PERCENT)) take(m, 'percent', String(Number(m[1])));
  // Before durations: "every 5 minutes" is how often, not how long.
  for (const m of lower.matchAll(TIMES_PERIOD)) {
    const times = TIMES[m[1]!] ?? (m[2] === undefined ? null : countOf(m[2]));
    if (times) take(m, 'frequency', String(PERIOD_WORDS[m[3]!]! / times));
  }
  for (const m of lower.matchAll(PERIOD_WORD)) take(m, 'frequency', String(PERIOD_WORDS[m[1]!]));
  for (const m of lower.matchAll(EVERY)) {
    const unit = PERIOD_UNITS[m[3]!];
    const word = m[2]?.split(/\s/)[0];
    const count = m[1] ? 2 : word === undefined ? 1 : (EVERY_COUNTS[word] ?? countOf(word));
    if (unit !== undefined && count !== null) take(m, 'frequency', String(count * unit));
  }
  for (const m of lower.matchAll(TIMES_PER)) {
    const unit = PERIOD_UNITS[m[3]!];
    const times = TIMES[m[1]!] ?? (m[2] === undefined ? null : countOf(m[2]));
    if (unit !== undefined && times) take(m, 'frequency', String(unit / times));
  }
  for (const m of lower.matchAll(QUANTITY)) {
    const n = numberOf(m[1]!);
    const unit = m[2]!;
    if (unit in DURATION_UNITS) take(m, 'duration', String(n * DURATION_UNITS[unit]!));
    else if (unit in SIZE_UNITS) take(m, 'size', String(n * SIZE_UNITS[unit]!));
  }
  for (const m of lower.matchAll(WORD_QUANTITY)) {
    // "a minute and a half", "three quarters of a minute": fractions are not read.
    if (/^\s+and\s+a\s+half/.test(lower.slice(m.index + m[0].length))) continue;
    if (/\bof\s+$/.test(lower.slice(Math.max(0, m.index - 4), m.index))) continue;
    const n = NUMBER_WORDS[m[1]!]!;
    const unit = m[2]!;
    if (unit in DURATION_UNITS) take(m, 'duration', String(n * DURATION_UNITS[unit]!));
    else if (n > 1 || m[1] === 'one') take(m, 'number', String(n));
  }
  for (const m of lower.matchAll(NUMBER)) take(m, 'number', String(numberOf(m[0])));
  const negation = NEGATION.exec(lower);
  if (negation)
    facts.push({ kind: 'negation', value: 'negated', text: 'negation', at: negation.index });
  return facts;
}

/**
 * Whether every value `text` states (a number, duration, size, port, version, setting...) is one
 * `other` states too, compared as normalised ("a minute" and "60 s" agree): a claim that adds a
 * value the memory does not hold says more than the memory does.
 */
export function valuesCovered(text: string, other: string): boolean {
  const key = (f: Fact) => `${f.kind}:${f.value}`;
  const held = new Set(extractFacts(other).map(key));
  return extractFacts(text).every((f) => f.kind === 'negation' || held.has(key(f)));
}

/**
 * Whether two observations state the same values: each states at least one (a negation is not a
 * value) and every value of each is one the other states. Close in meaning and agreeing on every
 * value, a re-observation is the same fact in other words ("60 s" and "a minute").
 */
export function sameValues(a: string, b: string): boolean {
  const stated = (t: string) => extractFacts(t).some((f) => f.kind !== 'negation');
  return stated(a) && stated(b) && valuesCovered(a, b) && valuesCovered(b, a);
}
