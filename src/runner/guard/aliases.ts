/**
 * Aliases: `alias r='docker restart'` followed by `r jellyfin` restarts a service under a name
 * the guard cannot resolve (the alias may be defined in one Bash call and used in the next, or
 * hidden behind `shopt -s expand_aliases`). A script that defines an alias, or turns on alias
 * expansion (`shopt -s expand_aliases`, `BASHOPTS=...expand_aliases`), is refused unless the
 * operator allows aliases. Listing aliases (`alias`, `alias -p`, `alias r`) and `unalias` pass.
 * Also here: the other variables the shell acts on (a prompt command runs; hooks.ts for the
 * variables that make a program run a command or a file). Pure.
 */
import { type Env, type Handler, NO_INPUT } from './env.js';
import { hookVariable } from './hooks.js';
import { literal, UNKNOWN_MARK, type Word, wordSource, wordText } from './words.js';

const WHY = 'an alias can hide a restart from the guard';

function refuse(env: Env, what: string): void {
  env.refuse({ kind: 'alias', name: 'alias', why: `${what}; ${WHY}` });
}

function shown(words: readonly Word[]): string {
  const text = words.map(wordSource).join(' ');
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

export const alias: Handler = (args, _stdin, env, program) => {
  // A word the guard cannot resolve may hold `name=value`.
  const defines = args.some((w) => literal(w) === null || wordText(w).includes('='));
  if (defines) refuse(env, `the script defines an alias (\`${program} ${shown(args)}\`)`);
};

export const shopt: Handler = (args, _stdin, env, program) => {
  const flags = args.filter((w) => /^-[a-z]+$/.test(literal(w) ?? ''));
  if (!flags.some((w) => literal(w)!.includes('s'))) return;
  const names = args.filter((w) => !flags.includes(w));
  if (names.some((w) => literal(w) === null || literal(w) === 'expand_aliases'))
    refuse(env, `the script turns on alias expansion (\`${program} ${shown(args)}\`)`);
};

/** Variables whose value the shell runs: the prompt commands and prompts (`$(...)` in PS4). */
const RUN_VARIABLES = new Set(['PROMPT_COMMAND', 'PS0', 'PS1', 'PS2', 'PS4']);

/**
 * An assignment (`X=1`, `export X=1`, `env X=1 cmd`) to a variable the shell acts on:
 * `BASHOPTS=expand_aliases` starts a new bash with alias expansion on; a prompt command runs.
 */
export function shellVariable(env: Env, name: string, value: string): void {
  hookVariable(env, name, value);
  if (RUN_VARIABLES.has(name))
    return env.engine.script(value, NO_INPUT, `\`${name}\` runs it`, env);
  if (name !== 'BASHOPTS') return;
  if (!value.includes('expand_aliases') && !value.includes(UNKNOWN_MARK)) return;
  refuse(env, `the script turns on alias expansion (\`BASHOPTS=${value.slice(0, 60)}\`)`);
}

/** `NAME=value` as one word (after `env` or `sudo`). */
export function shellVariableWord(env: Env, assignment: string): void {
  const eq = assignment.indexOf('=');
  shellVariable(env, assignment.slice(0, eq), assignment.slice(eq + 1));
}
