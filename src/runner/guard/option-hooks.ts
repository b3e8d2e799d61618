/**
 * Programs that run a command named in one of their options: tar (`--to-command`, `-I`/
 * `--use-compress-program`, `--checkpoint-action=exec=`, `-F`/`--info-script`), sort
 * (`--compress-program`), ssh (`-o ProxyCommand`, `LocalCommand`, `KnownHostsCommand`,
 * `PermitLocalCommand`), and `fc`, which runs commands again from the history. Their
 * ordinary uses (`tar -czf a.tgz dir`, `sort -n`, `ssh -o ConnectTimeout=5`, `fc -l`) pass.
 * GNU long options may be abbreviated (`--to-com`), so a prefix counts. Pure.
 */
import { type Env, type Handler } from './env.js';
import { hiddenHook, hook } from './hooks.js';
import { literal, type Word, wordText } from './words.js';

const text = (w: Word | undefined) => (w === undefined ? '' : (literal(w) ?? wordText(w)));

/** The long option `--name[=value]` is `full`, or an abbreviation of it at least `min` long. */
function isLong(name: string, full: string, min: string): boolean {
  return full.startsWith(name) && name.startsWith(min);
}

const TAR_HOOKS: [string, string][] = [
  ['to-command', 'to-c'],
  ['use-compress-program', 'use-c'],
  ['info-script', 'info'],
  ['new-volume-script', 'new-v'],
  ['rsh-command', 'rsh'],
  ['rmt-command', 'rmt'],
];
/** Short options taking an argument; `-I PROG` and `-F SCRIPT` run it. */
const TAR_ARGS = 'bCfFgHIKLNTVX';

export const tar: Handler = (args, _stdin, env, program) => {
  for (let i = 0; i < args.length; i += 1) {
    const s = text(args[i]);
    if (s === '--') break;
    if (s.startsWith('--')) {
      const eq = s.indexOf('=');
      const name = s.slice(2, eq === -1 ? undefined : eq);
      const inline = eq === -1 ? null : s.slice(eq + 1);
      const long = TAR_HOOKS.find(([full, min]) => isLong(name, full, min));
      if (long) hook(env, 'tar', `\`${program} --${long[0]}\``, inline ?? text(args[(i += 1)]));
      else if (isLong(name, 'checkpoint-action', 'checkpoint-a') && inline?.startsWith('exec='))
        hook(env, 'tar', `\`${program} --checkpoint-action=exec\``, inline.slice(5));
      continue;
    }
    // `-czf a.tgz`, or the old style without a dash as the first word (`tar czf a.tgz`).
    const dashed = s.startsWith('-');
    if (!dashed && (i > 0 || !/^[A-Za-z]+$/.test(s))) continue;
    const letters = s.replace(/^-/, '');
    let next = i + 1;
    for (let j = 0; j < letters.length; j += 1) {
      const c = letters[j]!;
      if (!TAR_ARGS.includes(c)) continue;
      const rest = letters.slice(j + 1);
      const value = dashed && rest ? rest : text(args[next++]);
      if (c === 'I' || c === 'F') hook(env, 'tar', `\`${program} -${c}\``, value);
      if (dashed) break;
    }
    i = next - 1;
  }
};

export const sort: Handler = (args, _stdin, env, program) => {
  for (let i = 0; i < args.length; i += 1) {
    const s = text(args[i]);
    if (s === '--') break;
    const eq = s.indexOf('=');
    const name = s.slice(2, eq === -1 ? undefined : eq);
    if (!s.startsWith('--') || !isLong(name, 'compress-program', 'co')) continue;
    const prog = eq === -1 ? text(args[(i += 1)]) : s.slice(eq + 1);
    hook(env, 'sort', `\`${program} --compress-program\``, prog);
  }
};

/** `fc -l` lists the history; any other `fc` runs commands from it again. */
export const fc: Handler = (args, _stdin, env, program) => {
  if (args.some((w) => /^-[a-zA-Z]*l/.test(text(w)))) return;
  hiddenHook(env, 'fc', `\`${program}\``, 'runs commands again from the shell history');
};

const SSH_HOOKS = new Set(['proxycommand', 'localcommand', 'knownhostscommand']);

/** ssh `-o Key=value` options that run a command. */
export function sshOptionHooks(env: Env, program: string, options: readonly Word[]): void {
  for (const option of options) {
    const m = /^\s*([A-Za-z_]+)\s*(?:=\s*|\s+)?([\s\S]*)$/.exec(wordText(option));
    const key = m?.[1] ?? '';
    const value = m?.[2] ?? '';
    const what = `\`${program} -o ${key || '…'}\``;
    if (!m) hiddenHook(env, 'ssh', what, 'sets an option');
    else if (SSH_HOOKS.has(key.toLowerCase()) && value.toLowerCase() !== 'none')
      hook(env, 'ssh', what, value);
    else if (key.toLowerCase() === 'permitlocalcommand' && !/^(no|false)$/i.test(value))
      hiddenHook(env, 'ssh', what, 'lets a LocalCommand from an ssh config file run');
  }
}
