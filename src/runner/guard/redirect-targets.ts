/**
 * The files a command's redirects write (`> f`, `>> f`, `2> f`, `&> f`, `>| f`), as words that
 * may be unknown: the read-only rule of a repository refuses a write that could land inside it.
 */
import type { Node } from 'web-tree-sitter';

import type { Walk } from './walk.js';
import { literal, type Word } from './words.js';

export function redirectTargets(w: Walk, node: Node): Word[] {
  const redirects =
    node.type === 'command'
      ? node.childrenForFieldName('redirect')
      : node.namedChildren.filter((c) => c.id !== node.childForFieldName('body')?.id);
  const out: Word[] = [];
  for (const r of redirects) {
    if (r.type !== 'file_redirect') continue;
    const op = r.children.find((c) => !c.isNamed)?.type ?? '';
    if (!/^(>|>>|&>|&>>|>\||>&)$/.test(op)) continue;
    const dest = r.childForFieldName('destination');
    if (!dest) continue;
    for (const word of w.evaluate(dest).flat()) {
      const lit = literal(word);
      // `2>&1`, `>&-`: a descriptor, not a file.
      if (op === '>&' && lit !== null && /^(\d+|-)$/.test(lit)) continue;
      if (lit !== '/dev/null') out.push(word);
    }
  }
  return out;
}
