/**
 * Variables a script assigns, and where: `$name` at a given point resolves to the values
 * assigned before it (or anywhere in an enclosing loop); a value the guard cannot know (`read`,
 * `+=`, arrays, `declare -n`) makes it unknown, and so does a variable the script never sets.
 */
import type { Node } from 'web-tree-sitter';

import { shellVariable } from './aliases.js';
import { MAX_ALTERNATIVES, TooManyAlternatives } from './expand.js';
import type { Walk } from './walk.js';
import type { Seg } from './words.js';

interface Assignment {
  start: number;
  end: number;
  /** The value node; 'empty' for `X=`; null when it cannot be known (read, +=, arrays). */
  value: Node | 'empty' | null;
  /** For-loop words: each field of each word is a possible value. */
  loopWords?: Node[];
}

const LOOPS = new Set(['for_statement', 'c_style_for_statement', 'while_statement']);

export class Variables {
  private readonly vars = new Map<string, Assignment[]>();
  private readonly resolving = new Set<string>();

  constructor(private readonly walk: Walk) {}

  private remember(name: string, a: Assignment): void {
    const list = this.vars.get(name) ?? [];
    list.push(a);
    this.vars.set(name, list);
  }

  collect(node: Node): void {
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
      shellVariable(this.walk.env, name, value ? this.walk.text(value) : '');
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
  values(name: string, use: Node): Seg[][] | null {
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
          for (const w of a.loopWords) out.push(...this.walk.evaluate(w).flat());
        } else if (a.value === null) {
          return null;
        } else if (a.value === 'empty') {
          out.push([]);
        } else {
          out.push(...this.walk.evaluate(a.value, false).map((fields) => fields.flat()));
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
