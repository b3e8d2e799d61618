/**
 * Globs as the guard reads them (`*`, `?`, `[...]`, and unknown parts that match anything), and
 * whether two globs can match the same string. Pure.
 */

/** One position of a glob: a literal character, `?`, a `[...]` set, or `*`. */
export type GlobToken =
  | { t: 'char'; c: string }
  | { t: 'any' }
  | { t: 'set'; negated: boolean; chars: string; ranges: [string, string][] }
  /** `free`: an unknown part (a variable, a substitution) rather than a glob `*`. */
  | { t: 'star'; free?: boolean };

export function literalGlob(text: string): GlobToken[] {
  return [...text].map((c) => ({ t: 'char', c }));
}

/** The tokens of glob syntax in `text` (`*`, `?`, `[...]`); other characters are literal. */
export function parseGlob(text: string): GlobToken[] {
  const out: GlobToken[] = [];
  const chars = [...text];
  for (let i = 0; i < chars.length; i += 1) {
    const c = chars[i]!;
    if (c === '*') {
      if (out[out.length - 1]?.t !== 'star') out.push({ t: 'star' });
    } else if (c === '?') out.push({ t: 'any' });
    else if (c === '[') {
      const set = parseSet(chars, i);
      if (set) {
        out.push(set.token);
        i = set.end;
      } else out.push({ t: 'char', c });
    } else out.push({ t: 'char', c });
  }
  return out;
}

function parseSet(
  chars: string[],
  open: number,
): { token: GlobToken & { t: 'set' }; end: number } | null {
  let i = open + 1;
  let negated = false;
  if (chars[i] === '!' || chars[i] === '^') {
    negated = true;
    i += 1;
  }
  let members = '';
  const ranges: [string, string][] = [];
  let first = true;
  for (; i < chars.length; i += 1) {
    const c = chars[i]!;
    if (c === ']' && !first)
      return { token: { t: 'set', negated, chars: members, ranges }, end: i };
    first = false;
    if (chars[i + 1] === '-' && chars[i + 2] !== undefined && chars[i + 2] !== ']') {
      ranges.push([c, chars[i + 2]!]);
      i += 2;
    } else members += c;
  }
  return null;
}

function inSet(token: GlobToken & { t: 'set' }, c: string): boolean {
  const hit = token.chars.includes(c) || token.ranges.some(([a, b]) => c >= a && c <= b);
  return token.negated ? !hit : hit;
}

/** Whether some single character satisfies both tokens (neither is a star). */
function tokensMeet(a: GlobToken, b: GlobToken): boolean {
  if (a.t === 'any' || b.t === 'any') return true;
  if (a.t === 'char' && b.t === 'char') return a.c === b.c;
  if (a.t === 'char' && b.t === 'set') return inSet(b, a.c);
  if (a.t === 'set' && b.t === 'char') return inSet(a, b.c);
  if (a.t === 'set' && b.t === 'set') {
    // Two sets meet unless both are positive and share nothing; negated sets leave plenty over.
    if (a.negated || b.negated) {
      if (a.negated && b.negated) return true;
      const pos = a.negated ? b : a;
      const neg = a.negated ? a : b;
      return candidates(pos).some((c) => inSet(neg, c));
    }
    return candidates(a).some((c) => inSet(b, c));
  }
  return false;
}

function candidates(set: GlobToken & { t: 'set' }): string[] {
  const out = [...set.chars];
  for (const [lo, hi] of set.ranges) {
    for (let cp = lo.codePointAt(0)!; cp <= hi.codePointAt(0)! && out.length < 512; cp += 1) {
      out.push(String.fromCodePoint(cp));
    }
  }
  return out;
}

export interface IntersectOptions {
  /** Positions of `b` that only a literal of `a` may cover for the match to count. */
  protect?: readonly boolean[];
}

/**
 * True when some string matches both globs. With `protect`, a match counts only when at least
 * one protected character of `b` is matched by a literal of `a` (not absorbed by its `*`).
 */
export function globsIntersect(
  a: readonly GlobToken[],
  b: readonly GlobToken[],
  opts: IntersectOptions = {},
): boolean {
  const seen = new Set<number>();
  const width = b.length + 1;
  const needOverlap = opts.protect !== undefined;
  const stack: [number, number, boolean][] = [[0, 0, !needOverlap]];
  while (stack.length > 0) {
    const [i, j, covered] = stack.pop()!;
    const key = (i * width + j) * 2 + (covered ? 1 : 0);
    if (seen.has(key)) continue;
    seen.add(key);
    if (i === a.length && j === b.length && covered) return true;
    const x = a[i];
    const y = b[j];
    if (x?.t === 'star') {
      stack.push([i + 1, j, covered]);
      if (y !== undefined) stack.push([i, j + 1, covered]);
    }
    if (y?.t === 'star') {
      stack.push([i, j + 1, covered]);
      if (x !== undefined) stack.push([i + 1, j, covered]);
    }
    if (x && y && x.t !== 'star' && y.t !== 'star' && tokensMeet(x, y)) {
      const literal = x.t === 'char' || x.t === 'set';
      stack.push([i + 1, j + 1, covered || (literal && opts.protect?.[j] === true)]);
    }
  }
  return false;
}
