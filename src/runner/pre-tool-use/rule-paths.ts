/**
 * Whether a path a command names could be inside a folder. A literal path is resolved against
 * the folder the command runs in; a word the guard cannot resolve (`$F`, `*.yml`) counts when it
 * could expand to a path inside, or when it is relative and the folder it runs in is unknown.
 */
import { isAbsolute, resolve } from 'node:path';

import { globsIntersect, literalGlob } from '../guard/glob.js';
import { literal, wordGlob } from '../guard/words.js';
import type { Seen } from './rule-watch.js';

function under(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

export function couldBeInside(seen: Seen, dir: string): boolean {
  const lit = literal(seen.word);
  if (lit !== null) {
    if (isAbsolute(lit)) return under(resolve(lit), dir);
    return seen.cwd === null || under(resolve(seen.cwd, lit), dir);
  }
  const glob = wordGlob(seen.word);
  const inside = [...literalGlob(dir.toLowerCase()), { t: 'star' as const }];
  const first = glob[0];
  if (first?.t === 'char' && first.c === '/') return globsIntersect(glob, inside);
  if (seen.cwd === null) return true;
  const relative = [...literalGlob(`${seen.cwd.toLowerCase()}/`), ...glob];
  // An unknown start may itself be absolute.
  return globsIntersect(relative, inside) || (first?.t === 'star' && globsIntersect(glob, inside));
}
