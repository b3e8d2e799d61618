/**
 * What the parts of a script walk share: the script's text, the input it was handed, where
 * findings go, and the walker's own readings (a word's values, a statement's output, a
 * command's input). The parts call one another through it, since a word can hold a command
 * whose output is another word.
 */
import type { Node, Parser } from 'web-tree-sitter';

import type { CommandWatch, Env, Input } from './env.js';
import type { Atom } from './expand.js';
import type { Seg, Word } from './words.js';

export interface GuardState {
  parser: Parser;
  /** Scripts and commands left to look at; past them the command counts as unreadable. */
  budget: { scripts: number; commands: number };
  /** Files the command writes before it may run them (see Engine.file). */
  files: Map<string, (string | null)[]>;
  watch?: CommandWatch;
}

export interface Walk {
  readonly src: string;
  /** The input the whole script was handed. */
  readonly stdin: Input;
  readonly env: Env;
  readonly state: GuardState;
  /** The words a word node expands to, per alternative. */
  evaluate(node: Node, split?: boolean): Word[][];
  /** A node's text after expansion, as one string (UNKNOWN_MARK where it cannot be known). */
  text(node: Node): string;
  atoms(node: Node, quoted: boolean): Atom[];
  /** Possible values of `$name` at `use` (null: unknown). */
  values(name: string, use: Node): Seg[][] | null;
  /** What a statement writes to its standard output, when the guard can tell. */
  output(node: Node): string | null;
  commandOutput(node: Node, ignoreRedirects?: boolean): string | null;
  /** Where the command's standard input comes from. */
  stdinOf(command: Node): Input;
  wrote(path: string, content: string | null): void;
}

/** How an unknown part handed down from an outer command shows in a message. */
export const UNKNOWN_SOURCE = '…';
export const MAX_OUTPUT = 1 << 20;

export function clip(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
