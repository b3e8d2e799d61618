/**
 * Where a command's standard input comes from: its own redirects (a here-doc, a here-string,
 * a file the guard cannot read), a redirect on an enclosing statement, the command piped into
 * it, or the input the whole script was handed.
 */
import type { Node } from 'web-tree-sitter';

import type { Input } from './env.js';
import { doubleQuoted } from './quoting.js';
import { clip, type Walk } from './walk.js';
import { literal } from './words.js';

/** Where the command's standard input comes from. */
export function stdinOf(w: Walk, command: Node): Input {
  const own = redirectInput(w, command.childrenForFieldName('redirect'));
  if (own) return own;
  let node = command;
  for (;;) {
    const parent = node.parent;
    if (!parent || parent.type === 'program') return w.stdin;
    if (parent.type === 'command_substitution' || parent.type === 'process_substitution')
      return w.stdin;
    if (parent.type === 'redirected_statement') {
      const body = parent.childForFieldName('body');
      if (body && body.id === node.id) {
        const input = redirectInput(
          w,
          parent.namedChildren.filter((c) => c.id !== body.id),
        );
        if (input) return input;
      }
    }
    if (parent.type === 'pipeline') {
      const members = parent.namedChildren.filter((c) => c.type !== 'comment');
      const index = members.findIndex((c) => c.id === node.id);
      if (index > 0) return pipeInput(w, members[index - 1]!);
      const owner = parent.parent;
      if (index === 0 && owner?.type === 'heredoc_redirect') {
        const body = owner.parent?.childForFieldName('body');
        if (body) return pipeInput(w, body);
      }
    }
    if (parent.type === 'heredoc_redirect') {
      // `cat <<EOF && next`: `next` reads the script's own input, not the here-doc.
      node = parent.parent ?? parent;
      continue;
    }
    node = parent;
  }
}

function redirectInput(w: Walk, redirects: Node[]): Input | null {
  let input: Input | null = null;
  for (const r of redirects) {
    const descriptor = r.childForFieldName('descriptor')?.text;
    if (descriptor !== undefined && descriptor !== '0') continue;
    if (r.type === 'heredoc_redirect') {
      const text = heredoc(w, r);
      input =
        text === null ? { kind: 'unknown', source: clip(r.text, 80) } : { kind: 'text', text };
    } else if (r.type === 'herestring_redirect') {
      const word = r.namedChildren.find((c) => c.type !== 'file_descriptor');
      input = word ? { kind: 'text', text: `${w.text(word)}\n` } : null;
    } else if (r.type === 'file_redirect') {
      const op = r.children.find((c) => !c.isNamed)?.type ?? '';
      if (op !== '<' && op !== '<&' && op !== '<>') continue;
      const dest = r.childForFieldName('destination');
      const path = dest ? literal(w.evaluate(dest)[0]?.[0] ?? []) : null;
      input =
        path === '/dev/null'
          ? { kind: 'text', text: '' }
          : { kind: 'unknown', source: clip(r.text, 80) };
    }
  }
  return input;
}

function heredoc(w: Walk, r: Node): string | null {
  const start = r.namedChildren.find((c) => c.type === 'heredoc_start')?.text ?? '';
  const body = r.namedChildren.find((c) => c.type === 'heredoc_body');
  if (!body) return '';
  const stripTabs = r.children.some((c) => !c.isNamed && c.type === '<<-');
  let text: string;
  if (/['"\\]/.test(start)) text = body.text;
  else {
    text = '';
    let pos = body.startIndex;
    for (const child of body.namedChildren) {
      text += doubleQuoted(w.src.slice(pos, child.startIndex), true);
      text += child.type === 'heredoc_content' ? doubleQuoted(child.text, true) : w.text(child);
      pos = child.endIndex;
    }
    text += doubleQuoted(w.src.slice(pos, body.endIndex), true);
  }
  return stripTabs ? text.replace(/^\t+/gm, '') : text;
}

function pipeInput(w: Walk, producer: Node): Input {
  const out = w.output(producer);
  return out === null
    ? { kind: 'unknown', source: clip(producer.text, 80) }
    : { kind: 'text', text: out };
}
