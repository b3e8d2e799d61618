/**
 * The common shape of a wrapper (`sudo -iu root cmd`, `nice -n 5 cmd`): options read by a spec,
 * then the command it runs, or with none, for some, a shell reading its input. Also the helpers
 * wrappers share. Pure.
 */
import { shellVariableWord } from './aliases.js';
import { type Env, type Handler, unknownProgram } from './env.js';
import { type OptionSpec, scanOptions } from './options.js';
import { shellFromStdin } from './shells.js';
import { UNKNOWN_MARK, unknownWord, type Word, wordText } from './words.js';

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** The words after leading `NAME=value` assignments, each told to the shell-variable check. */
export function skipAssignments(words: readonly Word[], env?: Env): Word[] {
  let i = 0;
  for (; i < words.length && ASSIGNMENT.test(wordText(words[i]!)); i += 1)
    if (env) shellVariableWord(env, wordText(words[i]!));
  return words.slice(i);
}

/**
 * A wrapper whose options are read by `spec`; its first operand is the command it runs. Without
 * one, some start a shell reading commands from stdin: always (`nsenter`), or with one of the
 * listed options (`sudo -s`, `sudo -i`).
 */
export function wrapper(
  spec: OptionSpec,
  opts: { assignments?: boolean; shell?: true | string[] } = {},
): Handler {
  return (args, stdin, env, program) => {
    const scan = scanOptions(args, spec);
    if (scan.unresolved) return unknownProgram(env, [unknownWord(`${program} ...`), ...args]);
    const inner = opts.assignments ? skipAssignments(scan.operands, env) : scan.operands;
    if (inner.length > 0) return env.engine.classify(inner, stdin, env);
    const shell = opts.shell;
    if (shell === true || shell?.some((k) => scan.options.has(k)))
      shellFromStdin(env, stdin, `\`${program}\` starts a shell`);
  };
}

/** A word rebuilt from text that may hold UNKNOWN_MARK, keeping its glob flag. */
export function wordFrom(text: string, like: Word): Word {
  const glob = like.some((s) => s.t === 'lit' && s.glob);
  if (!text.includes(UNKNOWN_MARK)) return [{ t: 'lit', s: text, glob }];
  return text
    .split(UNKNOWN_MARK)
    .flatMap((part, i): Word => [
      ...(i > 0 ? [{ t: 'unknown' as const, source: '{}', split: false }] : []),
      ...(part ? [{ t: 'lit' as const, s: part, glob }] : []),
    ]);
}
