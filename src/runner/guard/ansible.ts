/**
 * Ansible: a playbook without `--limit` may act on every service; ad-hoc commands run shell
 * code (`-m shell`), reboot hosts, or change services through the service modules. Pure.
 */
import { type Env, everything, type Handler, named, opaque, unresolved } from './env.js';
import { has, type OptionSpec, scanOptions, values, wordsOf } from './options.js';
import { literal, litWord, type Word, wordText } from './words.js';

const PLAYBOOK: OptionSpec = {
  short: 'ieltuTfcMk',
  long: wordsOf(`
    inventory extra-vars limit tags skip-tags user forks connection timeout vault-id
    vault-password-file private-key key-file module-path start-at-task become-method
    become-user ssh-common-args ssh-extra-args scp-extra-args sftp-extra-args`),
  permute: true,
};

/** `--limit a,b:!c` -> a, b, c; `all` or a wildcard acts on every host. */
function limitTargets(env: Env, limits: readonly Word[], what: string): Word[] | null {
  const out: Word[] = [];
  for (const w of limits) {
    const text = literal(w);
    if (text === null) {
      out.push(w);
      continue;
    }
    for (const part of text.split(/[,:]/)) {
      const name = part.replace(/^[!&]/, '').trim();
      if (name === 'all' || name === '*') {
        everything(env, ['redeployment'], `${what} --limit ${name} acts on every host`);
        return null;
      }
      if (name) out.push(litWord(name));
    }
  }
  return out;
}

export const ansiblePlaybook: Handler = (args, _stdin, env, program) => {
  const scan = scanOptions(args, PLAYBOOK);
  if (has(scan, '-C', '--check', '--syntax-check', '--list-hosts', '--list-tasks', '--list-tags'))
    return;
  const what = `\`${program}\``;
  const limits = values(scan, '-l', '--limit');
  if (limits.length === 0)
    return everything(env, ['redeployment'], `${what} without --limit may act on every service`);
  const targets = limitTargets(env, limits, what);
  if (targets) named(env, 'redeployment', targets, `${what} --limit acts on it`);
};

const SERVICE_MODULES =
  /^(ansible\.builtin\.|ansible\.legacy\.|community\.general\.|community\.docker\.)?(service|systemd|systemd_service|sysvinit|runit|supervisorctl|docker_container|docker_compose|docker_compose_v2|docker_swarm_service)$/;

export const ansible: Handler = (args, _stdin, env, program) => {
  const scan = scanOptions(args, {
    ...PLAYBOOK,
    short: `${PLAYBOOK.short}ma`,
    long: [...PLAYBOOK.long!, 'module-name', 'args'],
  });
  if (has(scan, '-C', '--check', '--list-hosts')) return;
  const module = values(scan, '-m', '--module-name').map(literal)[0] ?? 'command';
  const moduleArgs = values(scan, '-a', '--args');
  const text = moduleArgs.map(wordText).join(' ');
  const what = `\`${program} -m ${module ?? '?'}\``;
  if (module === null) return unresolved(env, args, `${what} cannot be resolved`, true);
  if (/^(ansible\.builtin\.)?(shell|command|raw)$/.test(module))
    return env.engine.script(text, { kind: 'none' }, `${what} runs it`, env);
  if (/(^|\.)reboot$/.test(module))
    return everything(env, ['restart'], `${what} reboots the hosts`);
  if (SERVICE_MODULES.test(module)) {
    const kv = new Map(
      [...text.matchAll(/([A-Za-z_]+)=("[^"]*"|'[^']*'|\S+)/g)].map((m) => [
        m[1]!,
        m[2]!.replace(/^["']|["']$/g, ''),
      ]),
    );
    const state = kv.get('state') ?? '';
    const changes =
      /^(restarted|stopped|started|reloaded|absent|present)$/.test(state) ||
      /^(yes|true)$/i.test(kv.get('restart') ?? kv.get('restarted') ?? kv.get('recreate') ?? '');
    if (!changes) return;
    const name = kv.get('name') ?? kv.get('services') ?? kv.get('project_name');
    if (!name) return everything(env, ['restart'], `${what} names no service`);
    return named(
      env,
      'restart',
      name.split(',').map((n) => litWord(n.trim())),
      `${what} ${state || 'restart'} acts on it`,
    );
  }
  opaque(env, text, `${what} names it with a restart-like word`);
};
