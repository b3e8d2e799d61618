/**
 * The Porter stemmer as SQLite's FTS5 `porter` tokenizer applies it (fts5_tokenize.c), so that
 * what the search calls a matching word is what the full-text index matched: "shares" and
 * "share", "files" and "file" are one word to both. Written here because no kept npm package is
 * installed; test/memory/porter.test.ts checks it word for word against FTS5's own stems.
 * Pure: lower-case ASCII words in, stems out; words under 3 or over 64 characters pass through.
 */

const isVowel = (w: string, i: number): boolean => {
  const c = w[i];
  if (c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u') return true;
  // "y" is a vowel after a consonant, a consonant first or after a vowel.
  return c === 'y' && i > 0 && !isVowel(w, i - 1);
};

/** Porter's m: the number of vowel-consonant sequences in w[0, n). */
function measure(w: string, n: number): number {
  let m = 0;
  let i = 0;
  while (i < n && !isVowel(w, i)) i += 1;
  while (i < n) {
    while (i < n && isVowel(w, i)) i += 1;
    if (i >= n) break;
    while (i < n && !isVowel(w, i)) i += 1;
    m += 1;
  }
  return m;
}

const hasVowel = (w: string, n: number): boolean => {
  for (let i = 0; i < n; i += 1) if (isVowel(w, i)) return true;
  return false;
};

/** *o: w[0, n) ends consonant-vowel-consonant, the last not w, x or y. */
const cvc = (w: string, n: number): boolean =>
  n >= 3 &&
  !isVowel(w, n - 1) &&
  isVowel(w, n - 2) &&
  !isVowel(w, n - 3) &&
  !'wxy'.includes(w[n - 1]!);

type Rule = [suffix: string, replacement: string];

/** The longest matching suffix is replaced when the stem before it has m > min; else nothing. */
function step(w: string, rules: readonly Rule[], min: number): string {
  for (const [suffix, to] of rules) {
    if (w.length > suffix.length && w.endsWith(suffix)) {
      const n = w.length - suffix.length;
      if (suffix === 'ion' && !(w[n - 1] === 's' || w[n - 1] === 't')) return w;
      return measure(w, n) > min ? w.slice(0, n) + to : w;
    }
  }
  return w;
}

// Longest suffixes first, so that the first match is the longest.
const byLength = (rules: Rule[]): Rule[] => rules.sort((a, b) => b[0].length - a[0].length);
const STEP2 = byLength(
  (
    'ational:ate tional:tion enci:ence anci:ance izer:ize logi:log bli:ble alli:al entli:ent ' +
    'eli:e ousli:ous ization:ize ation:ate ator:ate alism:al iveness:ive fulness:ful ' +
    'ousness:ous aliti:al iviti:ive biliti:ble'
  )
    .split(' ')
    .map((r) => r.split(':') as Rule),
);
const STEP3 = byLength(
  'icate:ic ative: alize:al iciti:ic ical:ic ful: ness:'
    .split(' ')
    .map((r) => r.split(':') as Rule),
);
const STEP4 = byLength(
  'al ance ence er ic able ible ant ement ment ent ion ou ism ate iti ous ive ize'
    .split(' ')
    .map((s) => [s, ''] as Rule),
);

function step1(word: string): string {
  let w = word;
  if (w.endsWith('sses') || w.endsWith('ies')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);

  let trimmed = false;
  if (w.endsWith('eed')) {
    if (measure(w, w.length - 3) > 0) w = w.slice(0, -1);
  } else if (w.endsWith('ed') && hasVowel(w, w.length - 2)) {
    w = w.slice(0, -2);
    trimmed = true;
  } else if (w.endsWith('ing') && hasVowel(w, w.length - 3)) {
    w = w.slice(0, -3);
    trimmed = true;
  }
  if (trimmed) {
    const last = w[w.length - 1]!;
    if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) w += 'e';
    else if (last === w[w.length - 2] && !isVowel(w, w.length - 1) && !'lsz'.includes(last))
      w = w.slice(0, -1);
    else if (measure(w, w.length) === 1 && cvc(w, w.length)) w += 'e';
  }
  if (w.endsWith('y') && hasVowel(w, w.length - 1)) w = `${w.slice(0, -1)}i`;
  return w;
}

export function porterStem(word: string): string {
  if (word.length < 3 || word.length > 64) return word;
  let w = step1(word);
  w = step(w, STEP2, 0);
  w = step(w, STEP3, 0);
  w = step(w, STEP4, 1);
  if (w.endsWith('e')) {
    const m = measure(w, w.length - 1);
    if (m > 1 || (m === 1 && !cvc(w, w.length - 1))) w = w.slice(0, -1);
  }
  if (w.endsWith('ll') && measure(w, w.length - 1) > 1) w = w.slice(0, -1);
  return w;
}
