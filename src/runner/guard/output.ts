/**
 * What a statement writes to its standard output, when the guard can tell (a list of echoes,
 * a pipeline ending in `base64 -d`): the text a substitution yields, or a shell is fed.
 */
import type { Node } from 'web-tree-sitter';

import { MAX_OUTPUT, type Walk } from './walk.js';

/** The output of `$(...)` or `<(...)`, or null when it cannot be known. */
export function substitution(w: Walk, node: Node): string | null {
  let out = '';
  for (const child of node.namedChildren) {
    if (child.type === 'comment') continue;
    const part = w.output(child);
    if (part === null) return null;
    out += part;
  }
  return out;
}

export function sendsOutputElsewhere(redirects: Node[]): boolean {
  return redirects.some((r) => {
    if (r.type !== 'file_redirect') return false;
    const op = r.children.find((c) => !c.isNamed)?.type ?? '';
    const fd = r.childForFieldName('descriptor')?.text;
    return /^(>|>>|&>|&>>|>\|)$/.test(op) && (fd === undefined || fd === '1');
  });
}

/** What a statement writes to its standard output, when the guard can tell. */
export function output(w: Walk, node: Node): string | null {
  switch (node.type) {
    case 'command':
      return w.commandOutput(node);
    case 'redirected_statement': {
      const body = node.childForFieldName('body');
      if (sendsOutputElsewhere(node.namedChildren.filter((c) => c.id !== body?.id))) return '';
      return body ? w.output(body) : null;
    }
    case 'pipeline': {
      const members = node.namedChildren.filter((c) => c.type !== 'comment');
      return members.length > 0 ? w.output(members[members.length - 1]!) : '';
    }
    case 'compound_statement':
    case 'subshell':
    case 'list':
    case 'program': {
      let out = '';
      for (const child of node.namedChildren) {
        if (child.type === 'comment') continue;
        const part = w.output(child);
        if (part === null || out.length > MAX_OUTPUT) return null;
        out += part;
      }
      return out;
    }
    case 'negated_command':
      return node.namedChildren[0] ? w.output(node.namedChildren[0]) : '';
    case 'variable_assignment':
    case 'variable_assignments':
    case 'declaration_command':
    case 'comment':
      return '';
    default:
      return null;
  }
}
