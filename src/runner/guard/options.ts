/**
 * getopt-style reading of a command's words: which options it was given (with their arguments)
 * and which operands. Enough to skip `sudo -iu root`, `timeout -s KILL 5`, `ssh -p 22 host` and
 * `docker compose -p media` correctly. Pure.
 */
import { literal, litWord, type Word } from './words.js';

export interface OptionSpec {
  /** Short option letters that take an argument (`-u root`, `-uroot`). */
  short?: string;
  /** Long option names (without `--`) that take an argument (`--user root`). */
  long?: readonly string[];
  /** Short letters whose argument is optional and can only be attached (`-m/path`). */
  attached?: string;
  /** Options may follow operands (GNU permutation); otherwise the first operand ends them. */
  permute?: boolean;
  /** `-NUM` is an option on its own (`nice -10`). */
  numeric?: boolean;
  /** Long options may be written with one dash (`-name`, kubectl and find style). */
  singleDashLong?: boolean;
}

export interface Scanned {
  /** Operands in order; without `permute`, every word from the first operand on. */
  operands: Word[];
  /** `-x` or `--long` -> arguments given (empty for a flag). */
  options: Map<string, Word[]>;
  /** An option word could not be read, so where the operands start is a guess. */
  unresolved: boolean;
}

export function scanOptions(words: readonly Word[], spec: OptionSpec = {}): Scanned {
  const options = new Map<string, Word[]>();
  const operands: Word[] = [];
  let unresolved = false;
  const add = (key: string, value?: Word) => {
    const list = options.get(key) ?? [];
    if (value) list.push(value);
    options.set(key, list);
  };
  for (let i = 0; i < words.length; i += 1) {
    const w = words[i]!;
    const s = literal(w);
    if (s === null) {
      const head = w[0];
      // An unknown word that starts like an option (or could be one) hides what follows it.
      if (head?.t === 'unknown' || (head?.t === 'lit' && head.s.startsWith('-'))) unresolved = true;
      operands.push(w);
      if (!spec.permute) {
        operands.push(...words.slice(i + 1));
        break;
      }
      continue;
    }
    if (s === '--') {
      operands.push(...words.slice(i + 1));
      break;
    }
    if (s.startsWith('--') || (spec.singleDashLong && s.length > 2 && s.startsWith('-'))) {
      const body = s.replace(/^--?/, '');
      const eq = body.indexOf('=');
      const name = eq === -1 ? body : body.slice(0, eq);
      if (eq !== -1) add(`--${name}`, litWord(body.slice(eq + 1)));
      else if (spec.long?.includes(name)) {
        add(`--${name}`, words[i + 1] ?? litWord(''));
        i += 1;
      } else add(`--${name}`);
      continue;
    }
    if (s.length > 1 && s.startsWith('-')) {
      if (spec.numeric && /^-\d+$/.test(s)) {
        add(s);
        continue;
      }
      for (let j = 1; j < s.length; j += 1) {
        const c = s[j]!;
        const rest = s.slice(j + 1);
        if (spec.short?.includes(c)) {
          if (rest) add(`-${c}`, litWord(rest));
          else {
            add(`-${c}`, words[i + 1] ?? litWord(''));
            i += 1;
          }
          break;
        }
        if (spec.attached?.includes(c)) {
          add(`-${c}`, rest ? litWord(rest) : undefined);
          break;
        }
        add(`-${c}`);
      }
      continue;
    }
    operands.push(w);
    if (!spec.permute) {
      operands.push(...words.slice(i + 1));
      break;
    }
  }
  return { operands, options, unresolved };
}

/** True when any of the option keys was given. */
export function has(scan: Scanned, ...keys: string[]): boolean {
  return keys.some((k) => scan.options.has(k));
}

/** Every argument given to any of the option keys. */
export function values(scan: Scanned, ...keys: string[]): Word[] {
  return keys.flatMap((k) => scan.options.get(k) ?? []);
}

/** A list written as one string of blank-separated words (keeps long tables short). */
export function wordsOf(text: string): string[] {
  return text.trim().split(/\s+/);
}

export function wordSet(text: string): Set<string> {
  return new Set(wordsOf(text));
}
