/**
 * What the runbook rules are checked against in a Bash command, gathered while the guard reads
 * it: every simple command (after wrappers, inside `sh -c`, ssh strings and the rest) and every
 * file it writes, each with the folder it runs in (`cd` followed; an unknown one is null).
 */
import { resolve } from 'node:path';

import type { CommandWatch } from '../command-guard.js';
import { literal, type Word } from '../guard/words.js';
import { writeTargets } from './write-targets.js';

const MAX_SEEN = 2000;

export interface Seen {
  word: Word;
  /** The folder a relative path is taken from; null when the guard cannot tell. */
  cwd: string | null;
}

export class RuleWatch implements CommandWatch {
  readonly commands: Word[][] = [];
  readonly writes: Seen[] = [];
  /** Every literal word of every command: a playbook read with `cat` is one of them. */
  readonly paths: Seen[] = [];
  private cwd: string | null;

  constructor(cwd: string) {
    this.cwd = cwd;
  }

  command(argv: readonly Word[]): void {
    if (this.commands.length >= MAX_SEEN) return;
    this.commands.push([...argv]);
    const [first, ...args] = argv;
    const program = (literal(first ?? []) ?? '').replace(/^.*\//, '');
    for (const word of args) if (literal(word) !== null) this.paths.push({ word, cwd: this.cwd });
    if (program === 'cd' || program === 'pushd') {
      const dir = args.find((w) => !(literal(w) ?? '').startsWith('-'));
      const lit = dir ? literal(dir) : null;
      this.cwd = dir && lit !== null && this.cwd !== null ? resolve(this.cwd, lit) : null;
      return;
    }
    for (const word of writeTargets(program, args)) this.writes.push({ word, cwd: this.cwd });
  }

  redirect(target: Word): void {
    if (this.writes.length < MAX_SEEN) this.writes.push({ word: target, cwd: this.cwd });
  }
}
