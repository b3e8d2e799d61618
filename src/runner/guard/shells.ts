/**
 * Shells (`sh -c`, `bash -c --`, a script on stdin, `bash file`, `source file`) and the script
 * files they and the interpreters run: /dev/stdin is their input, a file the command itself
 * wrote is read back, anything else on disk is judged by its name and arguments. Pure.
 */
import {
  BOTH,
  type Env,
  everything,
  type Handler,
  type Input,
  NO_INPUT,
  unknownProgram,
  unresolved,
} from './env.js';
import { has, type OptionSpec, scanOptions } from './options.js';
import { literal, litWord, unknownWord, type Word, wordSource, wordText } from './words.js';

/** A shell reading commands from its standard input. */
export function shellFromStdin(env: Env, stdin: Input, why: string): void {
  if (stdin.kind === 'none') return;
  if (stdin.kind === 'text') return env.engine.script(stdin.text, NO_INPUT, why, env);
  everything(env, BOTH, `${why} from \`${stdin.source}\`, which the guard cannot read`);
}

const SHELL: OptionSpec = { short: 'oO', long: ['rcfile', 'init-file'] };

export const shell: Handler = (args, stdin, env, program) => {
  // +o/+O take an argument as -o/-O do; `-` ends the options like `--`.
  const words = args.map((w) => {
    const s = literal(w);
    return s === '-' ? litWord('--') : s !== null && /^\+[oO]$/.test(s) ? litWord(`-${s[1]}`) : w;
  });
  const scan = scanOptions(words, SHELL);
  if (scan.unresolved) return unknownProgram(env, [unknownWord(program), ...args]);
  if (has(scan, '-c')) {
    const [code] = scan.operands;
    if (code) env.engine.script(wordText(code), stdin, `\`${program} -c\` runs it`, env);
    return;
  }
  const [file, ...rest] = scan.operands;
  if (!file || has(scan, '-s')) return shellFromStdin(env, stdin, `\`${program}\` reads commands`);
  runFile(env, file, rest, stdin, program, (text, input) =>
    env.engine.script(text, input, `\`${program} ${wordSource(file)}\` runs it`, env),
  );
};

export const source: Handler = (args, stdin, env, program) => {
  const [file, ...rest] = args;
  if (!file) return;
  runFile(env, file, rest, stdin, program, (text, input) =>
    env.engine.script(text, input, `\`${program} ${wordSource(file)}\` runs it`, env),
  );
};

const STDIN_FILES = new Set(['/dev/stdin', '/dev/fd/0', '/proc/self/fd/0', '-']);

/**
 * A script file run by a shell or an interpreter: /dev/stdin is its input; a file the command
 * itself wrote is read back; anything else is on disk, out of the guard's sight, and only its
 * name and arguments can be checked.
 */
export function runFile(
  env: Env,
  file: Word,
  args: readonly Word[],
  stdin: Input,
  program: string,
  run: (text: string, stdin: Input) => void,
  /** Told whence code came that the guard cannot read (interpreters refuse it). */
  unreadable?: (whence: string) => void,
): void {
  const path = literal(file);
  const what = `\`${program} ${wordSource(file)}\``;
  if (path !== null && STDIN_FILES.has(path)) {
    if (stdin.kind === 'text') return run(stdin.text, NO_INPUT);
    if (stdin.kind === 'unknown') {
      unreadable?.(`\`${stdin.source}\``);
      everything(env, BOTH, `${what} runs \`${stdin.source}\`, which the guard cannot read`);
    }
    return;
  }
  const written = path === null ? undefined : env.engine.file(path);
  if (written !== undefined) {
    for (const text of written) {
      if (text === null) {
        unreadable?.('a file the command itself wrote');
        everything(
          env,
          BOTH,
          `${what} runs a file this command wrote with content the guard cannot read`,
        );
      } else run(text, stdin);
    }
    return;
  }
  unresolved(env, [file, ...args], `${what} runs a script the guard cannot read`);
}
