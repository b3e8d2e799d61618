/**
 * git runs commands from its configuration: an alias starting with `!`, a pager, an editor, an
 * ssh command, an fsmonitor hook, filters, credential helpers. Set on the command line (`git -c
 * key=value`, `--config-env`), in the environment (`GIT_CONFIG_KEY_n`) or into a config file
 * (`git config alias.x '!cmd'`, run by a later `git x`), such a key is a hook the guard refuses;
 * so are `--exec-path=DIR` (git's own commands from elsewhere) and included config files.
 * Anything else git does leaves services alone. Pure.
 */
import type { Env, Handler } from './env.js';
import { hiddenHook, hook } from './hooks.js';
import { scanOptions } from './options.js';
import { literal, UNKNOWN_MARK, type Word, wordText } from './words.js';

/** Keys whose value is a command git runs (or a file of configuration or hooks). */
const COMMAND_KEY = new RegExp(
  '^(?:alias\\..+|core\\.(?:fsmonitor|sshcommand|pager|editor|askpass|hookspath|gitproxy|' +
    'alternaterefscommand)|sequence\\.editor|diff\\.external|diff\\..+\\.(?:textconv|command)|' +
    'merge\\..+\\.driver|filter\\..+\\.(?:clean|smudge|process)|credential\\.(?:.+\\.)?helper|' +
    'gpg\\.(?:.+\\.)?program|pager\\..+|uploadpack\\.packobjectshook|' +
    'remote\\..+\\.(?:uploadpack|receivepack)|(?:diff|merge)tool\\..+\\.cmd|' +
    '(?:browser|man)\\..+\\.cmd|web\\.browser|include\\.path|includeif\\..+\\.path)$',
  'i',
);
const BOOLEAN = /^(?:true|false|yes|no|on|off|1|0|)$/i;
const PAGERS = /^(?:cat|less|more)(?:\s+-[\w-]+)*$/;

/** The command a `key=value` setting makes git run, or null when it runs none. */
function commandOf(key: string, value: string): string | null {
  if (!COMMAND_KEY.test(key) && !key.includes(UNKNOWN_MARK)) return null;
  const lower = key.toLowerCase();
  if (lower.startsWith('alias.')) {
    if (value.startsWith('!')) return value.slice(1);
    // An alias to git options can set another key (`-c core.pager=cmd log`).
    return /(^|\s)(-c|--config-env|--exec-path)/.test(value) ? value : null;
  }
  if ((lower.startsWith('pager.') || lower === 'core.fsmonitor') && BOOLEAN.test(value))
    return null;
  if ((lower.startsWith('pager.') || lower === 'core.pager') && PAGERS.test(value)) return null;
  if (/^credential\./.test(lower) && /^[\w-]+$/.test(value)) return null; // git-credential-NAME
  return value;
}

/** `label`: how the key was set (`git -c`, `git config`). */
function setting(env: Env, label: string, key: string, value: string): void {
  const code = commandOf(key, value);
  if (code === null) return;
  const what = `\`${label} ${key.replaceAll(UNKNOWN_MARK, '…')}\``;
  if (/include/i.test(key)) return hiddenHook(env, 'git', what, 'reads a config file');
  hook(env, 'git', what, code);
}

export const git: Handler = (args, _stdin, env, program) => {
  let i = 0;
  for (; i < args.length; i += 1) {
    const w = literal(args[i]!) ?? wordText(args[i]!);
    if (!w.startsWith('-')) break;
    const eq = w.indexOf('=');
    const name = eq === -1 ? w : w.slice(0, eq);
    const attached = eq === -1 ? null : w.slice(eq + 1);
    if (name === '-c' || name === '--config-env') {
      const pair = attached ?? wordText(args[(i += 1)] ?? []);
      const sep = pair.indexOf('=');
      const key = sep === -1 ? pair : pair.slice(0, sep);
      // --config-env=key=ENVVAR: the value is in a variable the guard cannot see.
      const value = name === '-c' ? (sep === -1 ? 'true' : pair.slice(sep + 1)) : UNKNOWN_MARK;
      setting(env, `${program} -c`, key, value);
    } else if (name.startsWith('-c') && name.length > 2) {
      const pair = w.slice(2);
      const sep = pair.indexOf('=');
      setting(env, `${program} -c`, sep === -1 ? pair : pair.slice(0, sep), pair.slice(sep + 1));
    } else if (name === '--exec-path' && attached !== null) {
      hiddenHook(env, 'git', `\`${program} --exec-path\``, 'runs git commands from a folder');
    } else if (['-C', '--git-dir', '--work-tree', '--namespace'].includes(name) && eq === -1) {
      i += 1;
    }
  }
  if (literal(args[i] ?? []) === 'config') gitConfig(args.slice(i + 1), env, program);
};

/** `git config [--global] key value`, `git config set key value`: a hook for later. */
function gitConfig(args: Word[], env: Env, program: string): void {
  const scan = scanOptions(args, {
    short: 'f',
    long: ['file', 'blob', 'type', 'default', 'comment', 'value'],
    permute: true,
  });
  let ops = scan.operands.map(wordText);
  if (ops[0] === 'set') ops = ops.slice(1);
  const [key, value] = ops;
  if (key === undefined || value === undefined || key.startsWith('-')) return;
  setting(env, `${program} config`, key, value);
}
