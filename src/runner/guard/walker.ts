/**
 * Walks a parsed script: every simple command anywhere in the tree (lists, pipelines,
 * compound commands, functions, substitutions of every kind) is expanded and classified, with
 * its standard input worked out (a here-doc, a here-string, the output of the commands piped
 * into it, or a file the guard cannot read). Variables assigned in the script resolve to the
 * values assigned; anything else stays unknown, which the classifiers treat as "could be
 * anything".
 */
import type { Node } from 'web-tree-sitter';

import { atoms } from './atoms.js';
import { classifyCommand } from './classify.js';
import { commandOutput } from './command-output.js';
import { BOTH, type Env, everything, type Input } from './env.js';
import { braceExpand } from './brace.js';
import { type Atom, expandAtoms, MAX_ALTERNATIVES, TooManyAlternatives } from './expand.js';
import { stdinOf } from './input.js';
import { output } from './output.js';
import { Variables } from './variables.js';
import { clip, type GuardState, type Walk } from './walk.js';
import { redirectTargets } from './redirect-targets.js';
import { recordWrites, wroteFile } from './writes.js';
import { type Seg, UNKNOWN_MARK, unknownWord, type Word, wordText } from './words.js';

export class Walker implements Walk {
  private readonly vars = new Variables(this);

  constructor(
    readonly src: string,
    private readonly root: Node,
    readonly stdin: Input,
    readonly env: Env,
    readonly state: GuardState,
  ) {}

  run(): void {
    const steps: Node[] = [];
    const stack: Node[] = [this.root];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (node.type === 'command' || node.type === 'redirected_statement') steps.push(node);
      this.vars.collect(node);
      const kids = node.namedChildren;
      for (let i = kids.length - 1; i >= 0; i -= 1) stack.push(kids[i]!);
    }
    // A redirect is told to the watch once the commands it wraps have run (`cd x && echo > y`
    // parses as one redirected statement), so it is read in the folder they end in.
    const pending: { end: number; targets: Word[] }[] = [];
    const flush = (before: number) => {
      while (pending.length > 0 && pending[pending.length - 1]!.end <= before)
        for (const target of pending.pop()!.targets) this.state.watch?.redirect(target);
    };
    // In document order, so a script the command writes is known before the command runs it.
    for (const node of steps) {
      recordWrites(this, node);
      if (this.state.watch) {
        flush(node.startIndex);
        pending.push({ end: node.endIndex, targets: redirectTargets(this, node) });
      }
      if (node.type !== 'command') continue;
      this.state.budget.commands -= 1;
      if (this.state.budget.commands < 0) {
        everything(this.env, BOTH, 'it holds too many commands to check');
        return;
      }
      this.command(node);
    }
    flush(Infinity);
  }

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

  evaluate(node: Node, split = true): Word[][] {
    const parts = this.atoms(node, false);
    try {
      const out: Word[][] = [];
      for (const variant of split ? braceExpand(parts) : [parts]) {
        out.push(...expandAtoms(variant, split));
        if (out.length > MAX_ALTERNATIVES) throw new TooManyAlternatives();
      }
      return out;
    } catch (err) {
      if (err instanceof TooManyAlternatives) return [[unknownWord(node.text, split)]];
      throw err;
    }
  }

  text(node: Node): string {
    const alts = this.evaluate(node, false);
    if (alts.length !== 1) return UNKNOWN_MARK;
    return alts[0]!.map(wordText).join('');
  }

  atoms(node: Node, quoted: boolean): Atom[] {
    return atoms(this, node, quoted);
  }

  values(name: string, use: Node): Seg[][] | null {
    return this.vars.values(name, use);
  }

  output(node: Node): string | null {
    return output(this, node);
  }

  commandOutput(node: Node, ignoreRedirects = false): string | null {
    return commandOutput(this, node, ignoreRedirects);
  }

  stdinOf(command: Node): Input {
    return stdinOf(this, command);
  }

  wrote(path: string, content: string | null): void {
    wroteFile(this.state.files, path, content);
  }
}
