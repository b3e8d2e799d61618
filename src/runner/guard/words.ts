/**
 * A shell word after expansion, as far as the guard can know it: literal text (quoted, or
 * unquoted and so subject to globbing) and unknown parts (a variable from the environment, a
 * substitution whose output cannot be known). Pure.
 */
import { type GlobToken, parseGlob } from './glob.js';

export type Seg =
  | { t: 'lit'; s: string; glob: boolean }
  /** `split`: unquoted, so it may expand to several words, or to none. */
  | { t: 'unknown'; source: string; split: boolean };

export type Word = Seg[];

/**
 * Stands for an unknown part inside a string that is parsed again (an `sh -c` argument, an ssh
 * command): the inner parse reads it back as unknown. Written literally by a command, it only
 * makes the guard stricter.
 */
export const UNKNOWN_MARK = '__wk_unknown__';

const GLOB_CHARS = /[*?[]/;

export function litWord(s: string): Word {
  return [{ t: 'lit', s, glob: false }];
}

export function unknownWord(source: string, split = true): Word {
  return [{ t: 'unknown', source, split }];
}

/** The word's exact value, or null when any part is unknown or a glob. */
export function literal(word: Word): string | null {
  let out = '';
  for (const seg of word) {
    if (seg.t === 'unknown') return null;
    if (seg.glob && GLOB_CHARS.test(seg.s)) return null;
    out += seg.s;
  }
  return out;
}

/** The word as text for a nested parse: unknown parts become UNKNOWN_MARK. */
export function wordText(word: Word): string {
  return word.map((seg) => (seg.t === 'lit' ? seg.s : UNKNOWN_MARK)).join('');
}

/** The word as the user wrote it, near enough for a message or a mention check. */
export function wordSource(word: Word): string {
  return word.map((seg) => (seg.t === 'lit' ? seg.s : seg.source)).join('');
}

/** The word as a lower-cased glob: unknown parts match anything. */
export function wordGlob(word: Word): GlobToken[] {
  const out: GlobToken[] = [];
  for (const seg of word) {
    if (seg.t === 'unknown') out.push({ t: 'star', free: true });
    else if (seg.glob) out.push(...parseGlob(seg.s.toLowerCase()));
    else for (const c of seg.s.toLowerCase()) out.push({ t: 'char', c });
  }
  return out;
}

export function hasUnknown(word: Word): boolean {
  return word.some((seg) => seg.t === 'unknown');
}

/** True when the word is unquoted and unknown, so it may stand for several words. */
export function maySplit(word: Word): boolean {
  return word.some((seg) => seg.t === 'unknown' && seg.split);
}

/** Words of a text split on blanks (the way `eval`, ssh and `watch` join and re-read them). */
export function joinWords(words: readonly Word[]): string {
  return words.map(wordText).join(' ');
}

/** Adjacent literal segments with the same glob flag merged (keeps words small). */
export function compact(word: Word): Word {
  const out: Word = [];
  for (const seg of word) {
    const last = out[out.length - 1];
    if (seg.t === 'lit' && last?.t === 'lit' && last.glob === seg.glob) {
      out[out.length - 1] = { t: 'lit', s: last.s + seg.s, glob: seg.glob };
    } else if (seg.t !== 'lit' || seg.s !== '') out.push(seg);
  }
  return out;
}
