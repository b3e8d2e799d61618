/**
 * A word node taken apart into atoms before expansion: literal text (quoted or not), and each
 * variable or substitution with its possible values, as far as the script shows them.
 */
import type { Node } from 'web-tree-sitter';

import { type Atom, unquoted } from './expand.js';
import { ansiC, doubleQuoted } from './quoting.js';
import { substitution } from './output.js';
import { UNKNOWN_SOURCE, type Walk } from './walk.js';
import { type Seg, UNKNOWN_MARK } from './words.js';

export function textAtoms(text: string, quoted: boolean): Atom[] {
  const parts = text.split(UNKNOWN_MARK);
  const out: Atom[] = [];
  parts.forEach((part, i) => {
    if (i > 0) out.push({ k: 'x', values: null, quoted, source: UNKNOWN_SOURCE });
    if (quoted) {
      if (part) out.push({ k: 'q', s: part });
    } else out.push(...unquoted(part));
  });
  return out;
}

export function atoms(w: Walk, node: Node, quoted: boolean): Atom[] {
  // "$@" and "${list[@]}" are as many words as the list holds, quoted or not.
  const list = /^\$(?:@|\{(?:@|[A-Za-z_]\w*\[@\])[^}]*\})$/.test(node.text);
  const x = (values: Seg[][] | null): Atom[] => [
    { k: 'x', values, quoted: quoted && !list, source: node.text },
  ];
  switch (node.type) {
    case 'word':
    case 'brace_expression':
    case 'extglob_pattern':
    case 'variable_name':
    case 'regex':
      return textAtoms(node.text, quoted);
    case 'number':
      return node.namedChildCount > 0 ? x(null) : textAtoms(node.text, quoted);
    case 'raw_string':
      return textAtoms(node.text.slice(1, -1), true);
    case 'ansi_c_string':
      return textAtoms(ansiC(node.text.slice(2, -1)), true);
    case 'string':
      return spanAtoms(w, node, true, (t) => doubleQuoted(t), ['"', '$"']);
    case 'translated_string':
      return spanAtoms(w, node, quoted, (t) => t, ['$']);
    case 'concatenation':
    case 'command_name':
      return spanAtoms(w, node, quoted, (t) => t, []);
    case 'simple_expansion': {
      const name = node.namedChildren[0]?.text ?? '';
      return x(/^[A-Za-z_]/.test(name) ? w.values(name, node) : null);
    }
    case 'expansion': {
      const m = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(node.text);
      return x(m ? w.values(m[1]!, node) : null);
    }
    case 'command_substitution': {
      const out = substitution(w, node);
      return x(out === null ? null : [textSegs(out.replace(/\n+$/, ''), node.text)]);
    }
    case 'process_substitution': {
      // `<(cmd)` is a file holding cmd's output: `bash <(echo ...)` runs it.
      if (!node.text.startsWith('<(')) return x(null);
      const path = `/dev/fd/wk${w.state.files.size + 63}`;
      w.wrote(path, substitution(w, node));
      return x([[{ t: 'lit', s: path, glob: false }]]);
    }
    default:
      return x(null);
  }
}

/** Children of a string or concatenation in order, with the text between them. */
function spanAtoms(
  w: Walk,
  node: Node,
  quoted: boolean,
  literalText: (t: string) => string,
  delimiters: string[],
): Atom[] {
  const out: Atom[] = [];
  let pos = node.startIndex;
  const gap = (end: number) => {
    if (end > pos) {
      const t = w.src.slice(pos, end);
      out.push(...textAtoms(quoted ? literalText(t) : t, quoted));
    }
  };
  for (const child of node.children) {
    gap(child.startIndex);
    pos = Math.max(pos, child.endIndex);
    if (!child.isNamed && delimiters.includes(child.type)) continue;
    if (child.type === 'string_content') out.push(...textAtoms(literalText(child.text), true));
    else if (child.isNamed) out.push(...w.atoms(child, quoted));
    else out.push(...textAtoms(child.text, quoted));
  }
  gap(node.endIndex);
  return out;
}

function textSegs(text: string, source: string): Seg[] {
  const out: Seg[] = [];
  text.split(UNKNOWN_MARK).forEach((part, i) => {
    if (i > 0) out.push({ t: 'unknown', source: i === 1 ? source : UNKNOWN_SOURCE, split: true });
    if (part) out.push({ t: 'lit', s: part, glob: false });
  });
  return out;
}
