/**
 * vi, vim, ex and their kin run shell commands from their own commands (`:!cmd`, `:r !cmd`,
 * `system()`, `:terminal`, interpreters, a sourced file), given by `-c`, `+cmd`, `--cmd`, on
 * their input (ex mode, or keys when the input is not a terminal), or from a script file
 * (`-S`, `-s`, `-u`). Those that could start a process are a hook the guard refuses; editing
 * (`vim -c 'set nu' file`, `vi +10 file`) passes. Pure.
 */
import type { Handler } from './env.js';
import { hiddenHook, hook } from './hooks.js';
import { has, scanOptions, values } from './options.js';
import { UNKNOWN_MARK, type Word, wordText } from './words.js';

/**
 * Editor commands that can start a process, or reach one indirectly. A `!` right after a
 * command name forces it (`:q!`, `:wq!`), except after `:r`, which reads a command's output.
 */
const SPAWNS =
  /(?<![A-Za-z])!|\br(?:e|ea|ead)?!|\b(?:ter(?:m|mi|min|mina|minal)?|system(?:list)?|job_start|term_start|py\w*|perl\w*|lua\w*|rub\w*|tcl\w*|mz\w*|so(?:u|ur|urc|urce)?|exe(?:c|cu|cut|cute)?|norm(?:a|al)?|call|let|redir)\b/;

function spawns(code: string): boolean {
  return SPAWNS.test(code) || code.includes(UNKNOWN_MARK);
}

export const vim: Handler = (args, stdin, env, program) => {
  // `+cmd` is a command too (`+10` only moves the cursor).
  const plus = args.filter((w) => wordText(w).startsWith('+')).map((w) => wordText(w).slice(1));
  const scan = scanOptions(
    args.filter((w) => !wordText(w).startsWith('+')),
    { short: 'cSsuUiwWTrqt', long: ['cmd', 'cmdline'], permute: true },
  );
  const commands = [...values(scan, '-c', '--cmd').map(wordText), ...plus];
  for (const code of commands)
    if (spawns(code)) hook(env, 'vim', `\`${program} -c\``, code.replace(/^\s*:?\s*!/, ''));
  const files = (keys: string[]): Word[] =>
    values(scan, ...keys).filter((w) => !/^(NONE|NORC|NOPLUGIN)$/.test(wordText(w)));
  if (files(['-S', '-s', '-u']).length > 0)
    hiddenHook(env, 'vim', `\`${program} -S\``, 'runs editor commands from a file');
  // Its input is commands (ex mode) or keys, unless it is the file being edited (`vim -`).
  if (scan.operands.some((w) => wordText(w) === '-') || has(scan, '-h', '--help')) return;
  if (stdin.kind === 'text' && spawns(stdin.text))
    hook(env, 'vim', `\`${program}\` reading its input`, stdin.text);
  else if (stdin.kind === 'unknown')
    hiddenHook(env, 'vim', `\`${program}\``, `runs editor commands from \`${stdin.source}\``);
};
