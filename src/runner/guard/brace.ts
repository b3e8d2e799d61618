/**
 * Brace expansion as bash does it on unquoted text: `{a,b}` lists and `{1..3}`/`{a..c}`
 * sequences, nested, capped at a few alternatives. Pure.
 */
import { type Atom, MAX_ALTERNATIVES, TooManyAlternatives } from './expand.js';

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
