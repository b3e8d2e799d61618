/**
 * The output of the few printing commands the guard can run in its head (`echo`, `printf`,
 * `cat` of its input, `base64 -d`, `xxd -r -p`, `which`): enough to see a command piped into
 * a shell. Anything else is unknown.
 */
import type { Node } from 'web-tree-sitter';

import { ansiC } from './quoting.js';
import { sendsOutputElsewhere } from './output.js';
import { decodeBase64, printf } from './printed-text.js';
import type { Walk } from './walk.js';
import { literal, wordText } from './words.js';

/** `ignoreRedirects`: the output itself, even when the command sends it to a file. */
export function commandOutput(w: Walk, node: Node, ignoreRedirects = false): string | null {
  if (!ignoreRedirects && sendsOutputElsewhere(node.childrenForFieldName('redirect'))) return '';
  const name = node.childForFieldName('name');
  if (!name) return '';
  const alts = [name, ...node.childrenForFieldName('argument')].map((a) => w.evaluate(a));
  if (alts.some((a) => a.length !== 1)) return null;
  const [program, ...args] = alts.flatMap((a) => a[0]!);
  const prog = literal(program ?? [])?.replace(/^.*\//, '');
  const input = (): string | null => {
    const stdin = w.stdinOf(node);
    return stdin.kind === 'text' ? stdin.text : stdin.kind === 'none' ? '' : null;
  };
  const texts = args.map(wordText);
  switch (prog) {
    case 'echo': {
      let i = 0;
      let newline = true;
      let escapes = false;
      for (; i < texts.length && /^-[neE]+$/.test(texts[i]!); i += 1) {
        if (texts[i]!.includes('n')) newline = false;
        if (texts[i]!.includes('e')) escapes = true;
      }
      const body = texts.slice(i).join(' ');
      return (escapes ? ansiC(body) : body) + (newline ? '\n' : '');
    }
    case 'printf':
      if (texts[0] === '-v') return '';
      return texts.length > 0 ? printf(texts[0]!, texts.slice(1)) : '';
    case 'cat':
    case 'tee':
      return texts.every((t) => t === '-' || (prog === 'tee' && t !== '')) || texts.length === 0
        ? input()
        : null;
    case 'base64': {
      if (!texts.some((t) => /^(-d|-D|--decode|-[a-z]*d[a-z]*)$/.test(t))) return null;
      if (texts.some((t) => !t.startsWith('-'))) return null;
      const encoded = input();
      return encoded === null ? null : decodeBase64(encoded);
    }
    case 'xxd': {
      if (!texts.includes('-r') || !texts.includes('-p')) return null;
      const hex = input()?.replace(/\s+/g, '') ?? null;
      if (hex === null || !/^([0-9a-fA-F]{2})*$/.test(hex)) return null;
      return Buffer.from(hex, 'hex').toString('utf8');
    }
    case 'which':
      return texts
        .filter((t) => !t.startsWith('-'))
        .map((t) => `${t}\n`)
        .join('');
    case 'command':
    case 'type':
      return texts[0] === '-v' || texts[0] === '-p' || texts[0] === '-P'
        ? texts
            .slice(1)
            .map((t) => `${t}\n`)
            .join('')
        : null;
    case 'true':
    case ':':
      return '';
    default:
      return null;
  }
}
