/**
 * Word expansion as bash does it, as far as a static reading allows: brace expansion on
 * unquoted text, then variables and substitutions (each may have several possible values, or
 * an unknown one), then field splitting of unquoted expansions. Pure.
 */
import { compact, type Seg, type Word } from './words.js';

/** A piece of a word before expansion. */
export type Atom =
  /** An unquoted literal character: takes part in brace expansion and globbing. */
  | { k: 'u'; c: string }
  /** Quoted (or escaped) literal text. */
  | { k: 'q'; s: string }
  /** A variable or substitution: its possible values (null: unknown). */
  | { k: 'x'; values: Seg[][] | null; quoted: boolean; source: string };

/** Alternatives are capped: past this a word counts as unknown. */
export const MAX_ALTERNATIVES = 16;

export class TooManyAlternatives extends Error {}

export function unquoted(text: string): Atom[] {
  const out: Atom[] = [];
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length) {
      if (text[i + 1] !== '\n') out.push({ k: 'q', s: text[i + 1]! });
      i += 1;
    } else out.push({ k: 'u', c });
  }
  return out;
}

function sequence(body: string): string[] | null {
  const num = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/.exec(body);
  if (num) {
    const [a, b] = [Number(num[1]), Number(num[2])];
    const step = Math.abs(Number(num[3] ?? 1)) || 1;
    const count = Math.floor(Math.abs(b - a) / step) + 1;
    if (count > MAX_ALTERNATIVES * 4) throw new TooManyAlternatives();
    return Array.from({ length: count }, (_, i) => String(a + (b >= a ? i : -i) * step));
  }
  const chr = /^([A-Za-z])\.\.([A-Za-z])$/.exec(body);
  if (chr) {
    const [a, b] = [chr[1]!.charCodeAt(0), chr[2]!.charCodeAt(0)];
    const out: string[] = [];
    for (let c = a; b >= a ? c <= b : c >= b; c += b >= a ? 1 : -1)
      out.push(String.fromCharCode(c));
    return out;
  }
  return null;
}

/** `{a,b}` and `{1..3}` in unquoted text, innermost rules as bash's. */
export function braceExpand(atoms: readonly Atom[]): Atom[][] {
  for (let i = 0; i < atoms.length; i += 1) {
    const open = atoms[i]!;
    if (open.k !== 'u' || open.c !== '{') continue;
    let depth = 0;
    const commas: number[] = [];
    let close = -1;
    for (let j = i + 1; j < atoms.length; j += 1) {
      const a = atoms[j]!;
      if (a.k !== 'u') continue;
      if (a.c === '{') depth += 1;
      else if (a.c === '}') {
        if (depth === 0) {
          close = j;
          break;
        }
        depth -= 1;
      } else if (a.c === ',' && depth === 0) commas.push(j);
    }
    if (close === -1) continue;
    const prefix = atoms.slice(0, i);
    const suffix = atoms.slice(close + 1);
    let parts: Atom[][];
    if (commas.length > 0) {
      const bounds = [i, ...commas, close];
      parts = bounds.slice(1).map((end, n) => atoms.slice(bounds[n]! + 1, end));
    } else {
      const inner = atoms.slice(i + 1, close);
      const body = inner.every((a) => a.k === 'u')
        ? inner.map((a) => (a as { c: string }).c).join('')
        : '';
      const seq = sequence(body);
      if (!seq) continue;
      parts = seq.map((s) => [...s].map((c): Atom => ({ k: 'q', s: c })));
    }
    const out: Atom[][] = [];
    for (const part of parts) {
      for (const expanded of braceExpand([...prefix, ...part, ...suffix])) {
        out.push(expanded);
        if (out.length > MAX_ALTERNATIVES) throw new TooManyAlternatives();
      }
    }
    return out;
  }
  return [[...atoms]];
}

interface Partial {
  fields: Word[];
  current: Word | null;
}

/**
 * The words `atoms` expand to, per alternative value of its variables. `split`: unquoted
 * expansions are split on blanks (off for assignments and here-strings).
 */
export function expandAtoms(atoms: readonly Atom[], split = true): Word[][] {
  let alts: Partial[] = [{ fields: [], current: null }];
  const append = (p: Partial, seg: Seg): Partial => ({
    fields: p.fields,
    current: [...(p.current ?? []), seg],
  });
  for (const atom of atoms) {
    if (atom.k === 'u') {
      alts = alts.map((p) => append(p, { t: 'lit', s: atom.c, glob: split }));
      continue;
    }
    if (atom.k === 'q') {
      alts = alts.map((p) => append(p, { t: 'lit', s: atom.s, glob: false }));
      continue;
    }
    const values: Seg[][] = atom.values ?? [
      [{ t: 'unknown', source: atom.source, split: split && !atom.quoted }],
    ];
    const next: Partial[] = [];
    for (const p of alts) {
      for (const value of values) {
        next.push(atom.quoted || !split ? quotedValue(p, value) : splitValue(p, value));
        if (next.length > MAX_ALTERNATIVES) throw new TooManyAlternatives();
      }
    }
    alts = next;
  }
  return alts.map((p) => {
    const fields = p.current === null ? p.fields : [...p.fields, p.current];
    return fields.map(compact);
  });
}

function quotedValue(p: Partial, value: Seg[]): Partial {
  const segs = value.map((s): Seg =>
    s.t === 'lit' ? { ...s, glob: false } : { ...s, split: false },
  );
  return { fields: p.fields, current: [...(p.current ?? []), ...segs] };
}

/** An unquoted expansion: blanks in its known text end words; its text is globbed. */
function splitValue(p: Partial, value: Seg[]): Partial {
  const fields = [...p.fields];
  let current = p.current;
  for (const seg of value) {
    if (seg.t === 'unknown') {
      current = [...(current ?? []), { ...seg, split: true }];
      continue;
    }
    const pieces = seg.s.split(/[ \t\n]+/);
    pieces.forEach((piece, n) => {
      if (n > 0) {
        if (current !== null) fields.push(current);
        current = null;
      }
      if (piece) current = [...(current ?? []), { t: 'lit', s: piece, glob: true }];
    });
  }
  return { fields, current };
}

/** `$'...'` escapes. */
export function ansiC(body: string): string {
  return body.replace(
    /\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)/g,
    (_, e: string) => {
      const simple: Record<string, string> = {
        n: '\n',
        t: '\t',
        r: '\r',
        a: '\u0007',
        b: '\b',
        e: '\u001b',
        E: '\u001b',
        f: '\f',
        v: '\v',
      };
      if (simple[e] !== undefined) return simple[e]!;
      if (/^[xuU]/.test(e)) return String.fromCodePoint(parseInt(e.slice(1), 16));
      if (/^[0-7]+$/.test(e)) return String.fromCharCode(parseInt(e, 8));
      if (e.startsWith('c')) return String.fromCharCode(e.charCodeAt(1) & 31);
      return e;
    },
  );
}

/** Backslash escapes inside double quotes (and unquoted here-docs): only \$ \` \" \\ and newline. */
export function doubleQuoted(text: string, inHeredoc = false): string {
  return text.replace(inHeredoc ? /\\([$`\\\n])/g : /\\([$`"\\\n])/g, (_, c: string) =>
    c === '\n' ? '' : c,
  );
}
