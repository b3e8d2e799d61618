/**
 * The facts an observation states, read off its text for the contradiction rule
 * (contradiction.ts): durations (normalised to seconds, "a minute", "three minutes" and "a
 * minute and a half" included), how often something happens (hourly, nightly, "every 2 weeks",
 * "twice a day", "the first Sunday of the month", "a scrape interval of 30 s", normalised to a
 * period), times of day ("03:00", "3am"), sizes, percentages, ports, versions, other numbers,
 * settings (`KEY=value`) and whether it negates.
 */

import {
  DURATION_UNITS,
  NUMBER_WORDS,
  PERIOD_UNITS,
  PERIOD_WORDS,
  SIZE_UNITS,
} from './fact-words.js';

export type FactKind =
  | 'setting'
  | 'frequency'
  | 'time'
  | 'duration'
  | 'size'
  | 'percent'
  | 'port'
  | 'version'
  | 'number'
  | 'negation';

export interface Fact {
  kind: FactKind;
  /**
   * Normalised value: seconds (a period for a frequency), minutes past midnight (a time of day),
   * bytes, percent, port, version, number.
   */
  value: string;
  /** The text it was read from, for the explanation. */
  text: string;
  /** Where that text starts in the observation. */
  at: number;
}

// `KEY=value` settings: the same key with another value is another fact.
const SETTING = /\b([a-z_][a-z0-9_.]*)\s*=\s*([^\s;,]+)/gi;
const SHORT_VERSION = /\bv(\d+)\b/gi;
/** The words of NUMBER_WORDS as a regular expression's alternatives. */
const COUNT_WORDS = Object.keys(NUMBER_WORDS).join('|');
/** Units after a number that make it a quantity, not a version ("1.2 TB", "2.5 s"). */
const UNIT_AFTER = String.raw`(?!\s*(?:[kmgt]i?b|[kmg]|b|%|percent|x|ms|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|d|days?|weeks?|months?|years?)\b)`;
const VERSION = new RegExp(
  String.raw`\bv?(\d+\.\d+(?:\.\d+){0,2}(?:-[0-9a-z.]+)?)\b${UNIT_AFTER}`,
  'gi',
);
/** A time of day: "03:00", "3:30 pm", "3am", "11 p.m.", noon and midnight. */
const CLOCK = /(?<![\w.:])([01]?\d|2[0-3]):([0-5]\d)(?::[0-5]\d)?(?:\s*([ap])\.?m\b\.?)?/gi;
const HOUR_OF_DAY = /\b(1[0-2]|0?[1-9])\s*([ap])\.?m\b\.?|\b(noon|midday|midnight)\b/gi;
/** "a minute and a half", "two and a half hours", "half an hour", "a quarter of an hour". */
const FRACTION = new RegExp(
  String.raw`\b(?:(a|an|one)\s+([a-z]+)\s+and\s+a\s+half|(\d+|${COUNT_WORDS})\s+and\s+a\s+half\s+([a-z]+)|(half|(?:a\s+)?quarter)\s+(?:of\s+)?(?:an?\s+)?([a-z]+))\b`,
  'gi',
);
/** "the first Sunday of the month", "the 1st of every month", "the last day of each month". */
const DAY_OF_MONTH =
  /\b(?:(?:first|second|third|fourth|last|1st|2nd|3rd|4th|\d{1,2}(?:st|nd|rd|th))\s+(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|day|weekday|weekend)?\s*of\s+(?:the|each|every)\s+month)\b/gi;
/** A duration that is how often: "a scrape interval of 30 s", "on a 15 minute schedule". */
const INTERVAL_BEFORE = /\b(?:interval|frequency|schedule|cadence)\b(?:\s+[a-z]+){0,6}\s*$/;
const INTERVAL_AFTER = /^\s+(?:schedule|interval|cycle|cadence|timer)\b/;
const PORT = /(?:\bports?\s*:?\s*|:)(\d{2,5})\b/gi;
const PERCENT = /(\d+(?:\.\d+)?)\s*(?:%|percent\b)/gi;
/** A number, with thousands separated by commas or not ("1,000" is 1000, not 1 and 0). */
const DIGITS = String.raw`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?`;
const QUANTITY = new RegExp(`(${DIGITS})(?:\\s*|-)([a-z]+)\\b`, 'gi');
const WORD_QUANTITY = new RegExp(`\\b(${COUNT_WORDS})(?:\\s+|-)([a-z]+)\\b`, 'gi');
const NUMBER = new RegExp(`\\b(?:${DIGITS})\\b`, 'g');
/** "1,000" as 1000. */
const numberOf = (digits: string) => Number(digits.replaceAll(',', ''));
const PERIOD_WORD = new RegExp(`\\b(${Object.keys(PERIOD_WORDS).join('|')})\\b`, 'gi');
// "every night", "each hour", "every 2 weeks", "every 12h", "every other day", "every fifteen
// minutes", "every couple of hours", "every half hour"
const EVERY = new RegExp(
  `\\b(?:every|each)\\s+(?:(other)\\s+|(\\d+(?:\\.\\d+)?)\\s*|(${COUNT_WORDS}|couple\\s+of|half(?:\\s+an?)?|quarter\\s+of\\s+an?)\\s+)?([a-z]+)\\b`,
  'gi',
);
/** A count right before: "7 daily", "seven weekly" (not "a nightly job", "at 02:30 daily"). */
const COUNTED_BEFORE = new RegExp(
  `(?<![\\d:.,])\\b(?:\\d+|${Object.keys(NUMBER_WORDS)
    .filter((w) => w !== 'a' && w !== 'an')
    .join('|')})\\s+$`,
);
/** "on Sundays", "saturdays only": a weekday said in the plural is weekly. */
const WEEKDAYS = /\b(?:mon|tues|wednes|thurs|fri|satur|sun)days\b/gi;
/**
 * "every couple of hours", "every half hour", "every quarter of an hour": the counts written as
 * words of their own.
 */
const EVERY_COUNTS: Record<string, number> = { couple: 2, half: 0.5, quarter: 0.25 };
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
  for (const m of lower.matchAll(CLOCK)) {
    const hour = (Number(m[1]) % (m[3] ? 12 : 24)) + (m[3] === 'p' ? 12 : 0);
    take(m, 'time', String(hour * 60 + Number(m[2])));
  }
  for (const m of lower.matchAll(HOUR_OF_DAY)) {
    const named = m[3] === undefined ? null : m[3] === 'midnight' ? 0 : 720;
    take(m, 'time', String(named ?? ((Number(m[1]) % 12) + (m[2] === 'p' ? 12 : 0)) * 60));
  }
  for (const m of lower.matchAll(VERSION)) take(m, 'version', m[1]!);
  for (const m of lower.matchAll(SHORT_VERSION)) take(m, 'version', m[1]!);
  for (const m of lower.matchAll(PORT)) take(m, 'port', String(Number(m[1])));
  for (const m of lower.matchAll(PERCENT)) take(m, 'percent', String(Number(m[1])));
  // Before durations: "every 5 minutes" is how often, not how long.
  for (const m of lower.matchAll(TIMES_PERIOD)) {
    const times = TIMES[m[1]!] ?? (m[2] === undefined ? null : countOf(m[2]));
    if (times) take(m, 'frequency', String(PERIOD_WORDS[m[3]!]! / times));
  }
  for (const m of lower.matchAll(DAY_OF_MONTH)) take(m, 'frequency', String(PERIOD_WORDS.monthly));
  for (const m of lower.matchAll(PERIOD_WORD)) {
    // "keeps 7 daily snapshots": a kind of snapshot counted, not how often something runs.
    if (COUNTED_BEFORE.test(lower.slice(0, m.index))) continue;
    take(m, 'frequency', String(PERIOD_WORDS[m[1]!]));
  }
  for (const m of lower.matchAll(WEEKDAYS)) take(m, 'frequency', String(PERIOD_WORDS.weekly));
  for (const m of lower.matchAll(EVERY)) {
    const unit = PERIOD_UNITS[m[4]!];
    const word = (m[2] ?? m[3])?.split(/\s/)[0];
    const count = m[1] ? 2 : word === undefined ? 1 : (EVERY_COUNTS[word] ?? countOf(word));
    if (unit !== undefined && count !== null) take(m, 'frequency', String(count * unit));
  }
  for (const m of lower.matchAll(TIMES_PER)) {
    const unit = PERIOD_UNITS[m[3]!];
    const times = TIMES[m[1]!] ?? (m[2] === undefined ? null : countOf(m[2]));
    if (unit !== undefined && times) take(m, 'frequency', String(unit / times));
  }
  for (const m of lower.matchAll(FRACTION)) {
    const whole = m[1] ? 1 : m[3] ? countOf(m[3]) : 0;
    const part = m[5] ? (m[5] === 'half' ? 0.5 : 0.25) : 0.5;
    const unit = DURATION_UNITS[(m[2] ?? m[4] ?? m[6])!];
    if (unit !== undefined && whole !== null) take(m, 'duration', String((whole + part) * unit));
  }
  /** A duration, or how often when the words around it say it is an interval. */
  const timed = (m: RegExpExecArray, seconds: number) => {
    const interval =
      INTERVAL_BEFORE.test(lower.slice(0, m.index)) ||
      INTERVAL_AFTER.test(lower.slice(m.index + m[0].length));
    take(m, interval ? 'frequency' : 'duration', String(seconds));
  };
  for (const m of lower.matchAll(QUANTITY)) {
    const n = numberOf(m[1]!);
    const unit = m[2]!;
    if (unit in DURATION_UNITS) timed(m, n * DURATION_UNITS[unit]!);
    else if (unit in SIZE_UNITS) take(m, 'size', String(Math.round(n * SIZE_UNITS[unit]!)));
  }
  for (const m of lower.matchAll(WORD_QUANTITY)) {
    // Fractions are FRACTION's ("a minute and a half"); "three quarters of a minute" is not read.
    if (/^\s+and\s+a\s+half/.test(lower.slice(m.index + m[0].length))) continue;
    if (/\bof\s+$/.test(lower.slice(Math.max(0, m.index - 4), m.index))) continue;
    const n = NUMBER_WORDS[m[1]!]!;
    const unit = m[2]!;
    if (unit in DURATION_UNITS) timed(m, n * DURATION_UNITS[unit]!);
    else if (unit in SIZE_UNITS) take(m, 'size', String(Math.round(n * SIZE_UNITS[unit]!)));
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
