/**
 * Files a script writes before it may run them (`> file`, `>> file`, `tee file`, and what
 * `curl -o`, `cp` or `dd of=` put in place, whose content the guard cannot see), so that
 * `bash file` later in the same command is read back.
 */
import type { Node } from 'web-tree-sitter';

import { MAX_ALTERNATIVES } from './expand.js';
import type { Walk } from './walk.js';
import { literal } from './words.js';

/** `... > file`, `... >> file`, `tee file`: what the command writes where. */
export function recordWrites(w: Walk, node: Node): void {
  const redirects =
    node.type === 'command'
      ? node.childrenForFieldName('redirect')
      : node.namedChildren.filter((c) => c.id !== node.childForFieldName('body')?.id);
  for (const r of redirects) {
    if (r.type !== 'file_redirect') continue;
    const op = r.children.find((c) => !c.isNamed)?.type ?? '';
    const fd = r.childForFieldName('descriptor')?.text;
    if (!/^(>|>>|&>|&>>|>\|)$/.test(op) || (fd !== undefined && fd !== '1')) continue;
    const dest = r.childForFieldName('destination');
    const path = dest ? literal(w.evaluate(dest)[0]?.[0] ?? []) : null;
    if (path === null || path === '/dev/null') continue;
    const body = node.type === 'command' ? node : node.childForFieldName('body');
    const content = !body
      ? null
      : body.type === 'command'
        ? w.commandOutput(body, true)
        : w.output(body);
    w.wrote(path, content);
  }
  if (node.type === 'command') for (const path of downloads(w, node)) w.wrote(path, null);
  if (node.type === 'command' && node.childForFieldName('name')?.text === 'tee') {
    const stdin = w.stdinOf(node);
    const content = stdin.kind === 'text' ? stdin.text : stdin.kind === 'none' ? '' : null;
    for (const arg of node.childrenForFieldName('argument')) {
      const path = literal(w.evaluate(arg)[0]?.[0] ?? []);
      if (path !== null && !path.startsWith('-')) w.wrote(path, content);
    }
  }
}

/** Files a command fetches or copies into place: their content is out of the guard's sight. */
function downloads(w: Walk, node: Node): string[] {
  const program = node.childForFieldName('name')?.text.replace(/^.*\//, '');
  if (!program || !/^(curl|wget|cp|mv|install|ln|scp|rsync|dd)$/.test(program)) return [];
  const args = node
    .childrenForFieldName('argument')
    .map((a) => literal(w.evaluate(a)[0]?.[0] ?? []) ?? '');
  if (program === 'dd') return args.filter((a) => a.startsWith('of=')).map((a) => a.slice(3));
  if (program === 'curl' || program === 'wget') {
    const letter = program === 'curl' ? 'o' : 'O';
    const long = program === 'curl' ? '--output' : '--output-document';
    const out: string[] = [];
    args.forEach((a, i) => {
      const next = args[i + 1];
      if (a === long && next) out.push(next);
      else if (a.startsWith(`${long}=`)) out.push(a.slice(long.length + 1));
      else if (!a.startsWith('--')) {
        const short = new RegExp(`^-[a-zA-Z]*?${letter}(.*)$`).exec(a);
        if (short) out.push(short[1] || next || '-');
      }
    });
    return out.filter((p) => p !== '-');
  }
  const operands = args.filter((a) => a && !a.startsWith('-'));
  return operands.length >= 2 ? [operands[operands.length - 1]!] : [];
}

/** Remembers one content written to `path` (a few alternatives at most). */
export function wroteFile(
  files: Map<string, (string | null)[]>,
  path: string,
  content: string | null,
): void {
  const list = files.get(path) ?? [];
  if (list.length < MAX_ALTERNATIVES) list.push(content);
  files.set(path, list);
}
