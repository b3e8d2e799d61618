/**
 * Walks a parsed script: every simple command anywhere in the tree (lists, pipelines,
 * compound commands, functions, substitutions of every kind) is expanded and classified, with
 * its standard input worked out (a here-doc, a here-string, the output of the commands piped
 * into it, or a file the guard cannot read). Variables assigned in the script resolve to the
 * values assigned; anything else stays unknown, which the classifiers treat as "could be
 * anything".
 */
import type { Node, Parser } from 'web-tree-sitter';

import { withTree } from './bash-parser.js';
import { shellVariable } from './aliases.js';
import { classifyCommand } from './classify.js';
import { decodeBase64, printf } from './printed-text.js';
import { BOTH, type Env, everything, type Input, opaque } from './env.js';
import {
  ansiC,
  type Atom,
  braceExpand,
  doubleQuoted,
  expandAtoms,
  MAX_ALTERNATIVES,
  TooManyAlternatives,
  unquoted,
} from './expand.js';
import { literal, type Seg, UNKNOWN_MARK, unknownWord, type Word, wordText } from './words.js';

export interface GuardState {
  parser: Parser;
  /** Scripts and commands left to look at; past them the command counts as unreadable. */
  budget: { scripts: number; commands: number };
  /** Files the command writes before it may run them (see Engine.file). */
  files: Map<string, (string | null)[]>;
}

const MAX_DEPTH = 12;
/** How an unknown part handed down from an outer command shows in a message. */
const UNKNOWN_SOURCE = '…';
const MAX_OUTPUT = 1 << 20;
const LOOPS = new Set(['for_statement', 'c_style_for_statement', 'while_statement']);

export function analyseScript(text: string, stdin: Input, env: Env, state: GuardState): void {
  if (env.depth > MAX_DEPTH) return everything(env, BOTH, 'it nests commands too deeply to check');
  state.budget.scripts -= 1;
  if (state.budget.scripts < 0 || text.length > MAX_OUTPUT)
    return everything(env, BOTH, 'it is too large or complex to check');
  withTree(state.parser, text, (tree) => {
    const root = tree.rootNode;
    if (root.hasError) {
      opaque(
        { ...env, emit: (i) => env.emit({ command: clip(text), ...i }) },
        text,
        'it cannot be parsed as a shell command',
      );
    }
    new Walker(text, root, stdin, env, state).run();
  });
}

export function clip(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

interface Assignment {
  start: number;
  end: number;
  /** The value node; 'empty' for `X=`; null when it cannot be known (read, +=, arrays). */
  value: Node | 'empty' | null;
  /** For-loop words: each field of each word is a possible value. */
  loopWords?: Node[];
}

class Walker {
  private readonly vars = new Map<string, Assignment[]>();
  private readonly resolving = new Set<string>();

  constructor(
    private readonly src: string,
    private readonly root: Node,
    private readonly stdin: Input,
    private readonly env: Env,
    private readonly state: GuardState,
  ) {}

  run(): void {
    const steps: Node[] = [];
    const stack: Node[] = [this.root];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (node.type === 'command' || node.type === 'redirected_statement') steps.push(node);
      this.collectAssignment(node);
      const kids = node.namedChildren;
      for (let i = kids.length - 1; i >= 0; i -= 1) stack.push(kids[i]!);
    }
    // In document order, so a script the command writes is known before the command runs it.
    for (const node of steps) {
      this.recordWrites(node);
      if (node.type !== 'command') continue;
      this.state.budget.commands -= 1;
      if (this.state.budget.commands < 0) {
        everything(this.env, BOTH, 'it holds too many commands to check');
        return;
      }
      this.command(node);
    }
  }

  /** `... > file`, `... >> file`, `tee file`: what the command writes where. */
  private recordWrites(node: Node): void {
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
      const path = dest ? literal(this.evaluate(dest)[0]?.[0] ?? []) : null;
      if (path === null || path === '/dev/null') continue;
      const body = node.type === 'command' ? node : node.childForFieldName('body');
      const content = !body
        ? null
        : body.type === 'command'
          ? this.commandOutput(body, true)
          : this.output(body);
      this.wrote(path, content);
    }
    if (node.type === 'command') for (const path of this.downloads(node)) this.wrote(path, null);
    if (node.type === 'command' && node.childForFieldName('name')?.text === 'tee') {
      const stdin = this.stdinOf(node);
      const content = stdin.kind === 'text' ? stdin.text : stdin.kind === 'none' ? '' : null;
      for (const arg of node.childrenForFieldName('argument')) {
        const path = literal(this.evaluate(arg)[0]?.[0] ?? []);
        if (path !== null && !path.startsWith('-')) this.wrote(path, content);
      }
    }
  }

  /** Files a command fetches or copies into place: their content is out of the guard's sight. */
  private downloads(node: Node): string[] {
    const program = node.childForFieldName('name')?.text.replace(/^.*\//, '');
    if (!program || !/^(curl|wget|cp|mv|install|ln|scp|rsync|dd)$/.test(program)) return [];
    const args = node
      .childrenForFieldName('argument')
      .map((a) => literal(this.evaluate(a)[0]?.[0] ?? []) ?? '');
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

  private wrote(path: string, content: string | null): void {
    const list = this.state.files.get(path) ?? [];
    if (list.length < MAX_ALTERNATIVES) list.push(content);
    this.state.files.set(path, list);
  }

  // -------------------------------------------------------------------------------------------
  // Variables

  private remember(name: string, a: Assignment): void {
    const list = this.vars.get(name) ?? [];
    list.push(a);
    this.vars.set(name, list);
  }

  private collectAssignment(node: Node): void {
    const span = { start: node.startIndex, end: node.endIndex };
    if (node.type === 'variable_assignment') {
      const parent = node.parent;
      const nameNode = node.childForFieldName('name');
      const value = node.childForFieldName('value');
      if (!nameNode) return;
      const name =
        nameNode.type === 'subscript'
          ? (nameNode.childForFieldName('name')?.text ?? '')
          : nameNode.text;
      shellVariable(this.env, name, value ? this.text(value) : '');
      // `X=1 cmd` sets X for cmd only, after cmd's words were expanded.
      if (parent?.type === 'command' && parent.childForFieldName('name')) return;
      // `declare -n r=x`: $r reads x, whatever x holds when it is read.
      const nameref =
        node.parent?.type === 'declaration_command' &&
        node.parent.children.some((c) => /^-[a-zA-Z]*n/.test(c.text));
      const known =
        !nameref &&
        nameNode.type === 'variable_name' &&
        !/^[^=]*\+=/.test(node.text) &&
        value?.type !== 'array';
      this.remember(name, { ...span, value: !known ? null : (value ?? 'empty') });
    } else if (node.type === 'for_statement') {
      const variable = node.childForFieldName('variable');
      if (!variable) return;
      const words = node.childrenForFieldName('value');
      this.remember(variable.text, {
        start: node.startIndex,
        end: variable.endIndex,
        value: null,
        loopWords: words.length > 0 ? words : undefined,
      });
    } else if (node.type === 'command') {
      const name = node.childForFieldName('name')?.text;
      if (
        name !== 'read' &&
        name !== 'mapfile' &&
        name !== 'readarray' &&
        name !== 'getopts' &&
        name !== 'printf'
      )
        return;
      const args = node.childrenForFieldName('argument').map((a) => a.text);
      const targets =
        name === 'printf'
          ? args.flatMap((a, i) => (a === '-v' && args[i + 1] ? [args[i + 1]!] : []))
          : args.filter((a) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(a));
      for (const t of name === 'read' && targets.length === 0 ? ['REPLY'] : targets)
        this.remember(t, { ...span, value: null });
    }
  }

  /** Possible values of `$name` at `use` (null: unknown). */
  private values(name: string, use: Node): Seg[][] | null {
    const all = this.vars.get(name);
    if (!all || this.resolving.has(name)) return null;
    const loops: [number, number][] = [];
    for (let n = use.parent; n; n = n.parent) {
      if (LOOPS.has(n.type)) loops.push([n.startIndex, n.endIndex]);
    }
    const live = all.filter(
      (a) => a.end <= use.startIndex || loops.some(([s, e]) => a.start >= s && a.end <= e),
    );
    if (live.length === 0) return null; // from the environment
    this.resolving.add(name);
    try {
      const out: Seg[][] = [];
      for (const a of live) {
        if (a.loopWords) {
          for (const w of a.loopWords) out.push(...this.evaluate(w).flat());
        } else if (a.value === null) {
          return null;
        } else if (a.value === 'empty') {
          out.push([]);
        } else {
          out.push(...this.evaluate(a.value, false).map((fields) => fields.flat()));
        }
        if (out.length > MAX_ALTERNATIVES) return null;
      }
      return out.length === 0 ? [[]] : dedupe(out);
    } catch (err) {
      if (err instanceof TooManyAlternatives) return null;
      throw err;
    } finally {
      this.resolving.delete(name);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Words

  /** The words a word node expands to, per alternative. */
  evaluate(node: Node, split = true): Word[][] {
    const atoms = this.atoms(node, false);
    try {
      const out: Word[][] = [];
      for (const variant of split ? braceExpand(atoms) : [atoms]) {
        out.push(...expandAtoms(variant, split));
        if (out.length > MAX_ALTERNATIVES) throw new TooManyAlternatives();
      }
      return out;
    } catch (err) {
      if (err instanceof TooManyAlternatives) return [[unknownWord(node.text, split)]];
      throw err;
    }
  }

  /** A node's text after expansion, as one string (UNKNOWN_MARK where it cannot be known). */
  private text(node: Node): string {
    const alts = this.evaluate(node, false);
    if (alts.length !== 1) return UNKNOWN_MARK;
    return alts[0]!.map(wordText).join('');
  }

  private textAtoms(text: string, quoted: boolean): Atom[] {
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

  private atoms(node: Node, quoted: boolean): Atom[] {
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
        return this.textAtoms(node.text, quoted);
      case 'number':
        return node.namedChildCount > 0 ? x(null) : this.textAtoms(node.text, quoted);
      case 'raw_string':
        return this.textAtoms(node.text.slice(1, -1), true);
      case 'ansi_c_string':
        return this.textAtoms(ansiC(node.text.slice(2, -1)), true);
      case 'string':
        return this.spanAtoms(node, true, (t) => doubleQuoted(t), ['"', '$"']);
      case 'translated_string':
        return this.spanAtoms(node, quoted, (t) => t, ['$']);
      case 'concatenation':
      case 'command_name':
        return this.spanAtoms(node, quoted, (t) => t, []);
      case 'simple_expansion': {
        const name = node.namedChildren[0]?.text ?? '';
        return x(/^[A-Za-z_]/.test(name) ? this.values(name, node) : null);
      }
      case 'expansion': {
        const m = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(node.text);
        return x(m ? this.values(m[1]!, node) : null);
      }
      case 'command_substitution': {
        const out = this.substitution(node);
        return x(out === null ? null : [textSegs(out.replace(/\n+$/, ''), node.text)]);
      }
      case 'process_substitution': {
        // `<(cmd)` is a file holding cmd's output: `bash <(echo ...)` runs it.
        if (!node.text.startsWith('<(')) return x(null);
        const path = `/dev/fd/wk${this.state.files.size + 63}`;
        this.wrote(path, this.substitution(node));
        return x([[{ t: 'lit', s: path, glob: false }]]);
      }
      default:
        return x(null);
    }
  }

  /** Children of a string or concatenation in order, with the text between them. */
  private spanAtoms(
    node: Node,
    quoted: boolean,
    literalText: (t: string) => string,
    delimiters: string[],
  ): Atom[] {
    const out: Atom[] = [];
    let pos = node.startIndex;
    const gap = (end: number) => {
      if (end > pos) {
        const t = this.src.slice(pos, end);
        out.push(...this.textAtoms(quoted ? literalText(t) : t, quoted));
      }
    };
    for (const child of node.children) {
      gap(child.startIndex);
      pos = Math.max(pos, child.endIndex);
      if (!child.isNamed && delimiters.includes(child.type)) continue;
      if (child.type === 'string_content')
        out.push(...this.textAtoms(literalText(child.text), true));
      else if (child.isNamed) out.push(...this.atoms(child, quoted));
      else out.push(...this.textAtoms(child.text, quoted));
    }
    gap(node.endIndex);
    return out;
  }

  // -------------------------------------------------------------------------------------------
  // Commands

  private command(node: Node): void {
    const name = node.childForFieldName('name');
    if (!name) return;
    const words = [name, ...node.childrenForFieldName('argument')];
    let argvs: Word[][] = [[]];
    for (const w of words) {
      const alts = this.evaluate(w);
      const next: Word[][] = [];
      for (const argv of argvs) for (const alt of alts) next.push([...argv, ...alt]);
      argvs = next.length > MAX_ALTERNATIVES ? argvs.map((a) => [...a, unknownWord(w.text)]) : next;
    }
    const stdin = this.stdinOf(node);
    const command = clip(node.text);
    const env: Env = {
      ...this.env,
      command,
      emit: (i) => this.env.emit({ command, ...i }),
      refuse: (r) => this.env.refuse({ command, ...r }),
    };
    for (const argv of argvs) classifyCommand(argv, stdin, env);
  }

  // -------------------------------------------------------------------------------------------
  // Standard input and output

  /** Where the command's standard input comes from. */
  private stdinOf(command: Node): Input {
    const own = this.redirectInput(command.childrenForFieldName('redirect'));
    if (own) return own;
    let node = command;
    for (;;) {
      const parent = node.parent;
      if (!parent || parent.type === 'program') return this.stdin;
      if (parent.type === 'command_substitution' || parent.type === 'process_substitution')
        return this.stdin;
      if (parent.type === 'redirected_statement') {
        const body = parent.childForFieldName('body');
        if (body && body.id === node.id) {
          const input = this.redirectInput(parent.namedChildren.filter((c) => c.id !== body.id));
          if (input) return input;
        }
      }
      if (parent.type === 'pipeline') {
        const members = parent.namedChildren.filter((c) => c.type !== 'comment');
        const index = members.findIndex((c) => c.id === node.id);
        if (index > 0) return this.pipeInput(members[index - 1]!);
        const owner = parent.parent;
        if (index === 0 && owner?.type === 'heredoc_redirect') {
          const body = owner.parent?.childForFieldName('body');
          if (body) return this.pipeInput(body);
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

  private redirectInput(redirects: Node[]): Input | null {
    let input: Input | null = null;
    for (const r of redirects) {
      const descriptor = r.childForFieldName('descriptor')?.text;
      if (descriptor !== undefined && descriptor !== '0') continue;
      if (r.type === 'heredoc_redirect') {
        const text = this.heredoc(r);
        input =
          text === null ? { kind: 'unknown', source: clip(r.text, 80) } : { kind: 'text', text };
      } else if (r.type === 'herestring_redirect') {
        const word = r.namedChildren.find((c) => c.type !== 'file_descriptor');
        input = word ? { kind: 'text', text: `${this.text(word)}\n` } : null;
      } else if (r.type === 'file_redirect') {
        const op = r.children.find((c) => !c.isNamed)?.type ?? '';
        if (op !== '<' && op !== '<&' && op !== '<>') continue;
        const dest = r.childForFieldName('destination');
        const path = dest ? literal(this.evaluate(dest)[0]?.[0] ?? []) : null;
        input =
          path === '/dev/null'
            ? { kind: 'text', text: '' }
            : { kind: 'unknown', source: clip(r.text, 80) };
      }
    }
    return input;
  }

  private heredoc(r: Node): string | null {
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
        text += doubleQuoted(this.src.slice(pos, child.startIndex), true);
        text +=
          child.type === 'heredoc_content' ? doubleQuoted(child.text, true) : this.text(child);
        pos = child.endIndex;
      }
      text += doubleQuoted(this.src.slice(pos, body.endIndex), true);
    }
    return stripTabs ? text.replace(/^\t+/gm, '') : text;
  }

  private pipeInput(producer: Node): Input {
    const out = this.output(producer);
    return out === null
      ? { kind: 'unknown', source: clip(producer.text, 80) }
      : { kind: 'text', text: out };
  }

  private substitution(node: Node): string | null {
    let out = '';
    for (const child of node.namedChildren) {
      if (child.type === 'comment') continue;
      const part = this.output(child);
      if (part === null) return null;
      out += part;
    }
    return out;
  }

  private sendsOutputElsewhere(redirects: Node[]): boolean {
    return redirects.some((r) => {
      if (r.type !== 'file_redirect') return false;
      const op = r.children.find((c) => !c.isNamed)?.type ?? '';
      const fd = r.childForFieldName('descriptor')?.text;
      return /^(>|>>|&>|&>>|>\|)$/.test(op) && (fd === undefined || fd === '1');
    });
  }

  /** What a statement writes to its standard output, when the guard can tell. */
  private output(node: Node): string | null {
    switch (node.type) {
      case 'command':
        return this.commandOutput(node);
      case 'redirected_statement': {
        const body = node.childForFieldName('body');
        if (this.sendsOutputElsewhere(node.namedChildren.filter((c) => c.id !== body?.id)))
          return '';
        return body ? this.output(body) : null;
      }
      case 'pipeline': {
        const members = node.namedChildren.filter((c) => c.type !== 'comment');
        return members.length > 0 ? this.output(members[members.length - 1]!) : '';
      }
      case 'compound_statement':
      case 'subshell':
      case 'list':
      case 'program': {
        let out = '';
        for (const child of node.namedChildren) {
          if (child.type === 'comment') continue;
          const part = this.output(child);
          if (part === null || out.length > MAX_OUTPUT) return null;
          out += part;
        }
        return out;
      }
      case 'negated_command':
        return node.namedChildren[0] ? this.output(node.namedChildren[0]) : '';
      case 'variable_assignment':
      case 'variable_assignments':
      case 'declaration_command':
      case 'comment':
        return '';
      default:
        return null;
    }
  }

  /** `ignoreRedirects`: the output itself, even when the command sends it to a file. */
  private commandOutput(node: Node, ignoreRedirects = false): string | null {
    if (!ignoreRedirects && this.sendsOutputElsewhere(node.childrenForFieldName('redirect')))
      return '';
    const name = node.childForFieldName('name');
    if (!name) return '';
    const alts = [name, ...node.childrenForFieldName('argument')].map((w) => this.evaluate(w));
    if (alts.some((a) => a.length !== 1)) return null;
    const [program, ...args] = alts.flatMap((a) => a[0]!);
    const prog = literal(program ?? [])?.replace(/^.*\//, '');
    const input = (): string | null => {
      const stdin = this.stdinOf(node);
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
}

function textSegs(text: string, source: string): Seg[] {
  const out: Seg[] = [];
  text.split(UNKNOWN_MARK).forEach((part, i) => {
    if (i > 0) out.push({ t: 'unknown', source: i === 1 ? source : UNKNOWN_SOURCE, split: true });
    if (part) out.push({ t: 'lit', s: part, glob: false });
  });
  return out;
}

function dedupe(values: Seg[][]): Seg[][] {
  const seen = new Set<string>();
  return values.filter((v) => {
    const key = JSON.stringify(v);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
