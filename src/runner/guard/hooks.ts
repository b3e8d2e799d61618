/**
 * Hooks: a command a program runs from one of its options or from a variable (`git -c
 * alias.x='!cmd'`, `tar --to-command=cmd`, `ssh -o ProxyCommand=cmd`, `LESSOPEN`, `BASH_ENV`).
 * The guard cannot follow what the program does with it, so it refuses the command unless the
 * operator allows the hook by name; the command itself is still checked as a script, so what
 * is allowed still meets the cooldowns. Pure.
 */
import { type Env, NO_INPUT } from './env.js';
import { UNKNOWN_MARK } from './words.js';

function shown(text: string): string {
  const flat = text.replaceAll(UNKNOWN_MARK, '…').replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 80)}…` : flat;
}

/**
 * Refuses `what` (`\`git -c alias.x\``), which makes the program run `code`; `code` is checked
 * as a shell command too. `name` is the hook as the operator allows it.
 */
export function hook(env: Env, name: string, what: string, code: string): void {
  env.refuse({
    kind: 'hook',
    name,
    why: `${what} runs a command (\`${shown(code)}\`), and the guard cannot follow what it runs`,
  });
  env.engine.script(code, NO_INPUT, `${what} runs it`, env);
}

/** Refuses `what`, which makes the program read or run something the guard cannot see. */
export function hiddenHook(env: Env, name: string, what: string, which: string): void {
  env.refuse({ kind: 'hook', name, why: `${what} ${which}, which the guard cannot read` });
}

/**
 * A variable naming a file a shell runs before its commands: `BASH_ENV` (every non-interactive
 * bash), `ENV` (interactive POSIX shells; only a value that looks like a path counts, so
 * `ENV=prod` passes). A file the command itself wrote is read back.
 */
function startupFile(env: Env, name: string, value: string): void {
  if (value === '') return;
  if (name === 'ENV' && !/[/.~]/.test(value) && !value.includes(UNKNOWN_MARK)) return;
  const what = `\`${name}=${shown(value)}\``;
  const written = value.includes(UNKNOWN_MARK) ? undefined : env.engine.file(value);
  if (written === undefined || written.includes(null))
    return hiddenHook(env, name, what, 'makes the shell run a file first');
  for (const text of written)
    if (text !== null) env.engine.script(text, NO_INPUT, `${what} runs it`, env);
}

/** Variables that make a program run a command or a file (see shellVariable). */
export function hookVariable(env: Env, name: string, value: string): void {
  if (name === 'BASH_ENV' || name === 'ENV') return startupFile(env, name, value);
  if ((name === 'LESSOPEN' || name === 'LESSCLOSE') && value.trim() !== '') {
    // `|cmd %s`, `||cmd %s`, `cmd %s %s`: the preprocessor less runs on each file.
    const code = value.replace(/^\s*\|{0,2}-?/, '').replaceAll('%s', 'file');
    hook(env, 'less', `\`${name}\``, code);
  }
}
