/**
 * Word expansion as bash does it, as far as a static reading allows: brace expansion on
 * unquoted text, then variables and substitutions (each may have several possible values, or
 * an unknown one), then field splitting of unquoted expansions (brace expansion is in brace.ts,
 * quoting in quoting.ts). Pure.
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
