/**
 * The words of values, for reading facts (facts.ts): units of time, size and the calendar, the
 * words that say how often, and counts written as words. Each maps to seconds, bytes or the
 * number it names.
 */

export const DURATION_UNITS: Readonly<Record<string, number>> = {
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
  month: 2_592_000,
  months: 2_592_000,
  year: 31_536_000,
  years: 31_536_000,
};

/** Periods of the words that say how often, in seconds. */
export const PERIOD_WORDS: Readonly<Record<string, number>> = {
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
export const PERIOD_UNITS: Readonly<Record<string, number>> = {
  ...DURATION_UNITS,
  night: 86_400,
  morning: 86_400,
  evening: 86_400,
  quarter: 7_776_000,
  // "every Sunday", "every Sunday night"
  monday: 604_800,
  tuesday: 604_800,
  wednesday: 604_800,
  thursday: 604_800,
  friday: 604_800,
  saturday: 604_800,
  sunday: 604_800,
};

/**
 * Sizes, every unit read as a power of 1024: "2 GB" and "2048 MB" are the same buffer as an
 * operator writes them, whichever the tool meant.
 */
export const SIZE_UNITS: Readonly<Record<string, number>> = {
  b: 1,
  kb: 1024,
  mb: 1024 ** 2,
  gb: 1024 ** 3,
  tb: 1024 ** 4,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
  k: 1024,
  m: 1024 ** 2,
  g: 1024 ** 3,
  byte: 1,
  bytes: 1,
  kilobyte: 1024,
  kilobytes: 1024,
  megabyte: 1024 ** 2,
  megabytes: 1024 ** 2,
  gigabyte: 1024 ** 3,
  gigabytes: 1024 ** 3,
  terabyte: 1024 ** 4,
  terabytes: 1024 ** 4,
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
