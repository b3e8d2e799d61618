/**
 * Which services a shell command would restart or redeploy: `docker restart|stop|start`,
 * `docker compose restart|up`, `systemctl restart`, `service X restart`, `kubectl rollout
 * restart`, `helm upgrade`, `ansible-playbook`, also when wrapped in `ssh host ...`,
 * `sh -c ...`, `sudo`, `env`, `timeout` or `$(...)`. Pure.
 */
import type { CooldownAction } from '../stream/index.js';

export interface RemediationIntent {
  action: CooldownAction;
  /** Services named on the command line; empty when the command names none (see `mentions`). */
  targets: string[];
  /** True when the command acts on unnamed services (e.g. `docker compose up`, a playbook). */
  untargeted: boolean;
}

import { splitShell } from './shell-words.js';

const WRAPPERS_WITH_ARG = new Map<string, Set<string>>([
  ['sudo', new Set(['-u', '-g', '-h', '-p', '-C', '-D', '-r', '-t', '-U'])],
  ['timeout', new Set(['-s', '--signal', '-k', '--kill-after'])],
  ['nice', new Set(['-n', '--adjustment'])],
]);
const PLAIN_WRAPPERS = new Set([
  'nohup',
  'exec',
  'command',
  'time',
  'builtin',
  'stdbuf',
  'ionice',
  'chroot',
]);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ash', 'ksh']);
const SSH_OPTS_WITH_ARG = new Set('BbcDEeFIiJLlmOoPpQRSWw'.split('').map((c) => `-${c}`));
const DOCKER_GLOBAL_WITH_ARG = new Set([
  '-H',
  '--host',
  '-c',
  '--context',
  '--config',
  '-l',
  '--log-level',
]);
const COMPOSE_OPTS_WITH_ARG = new Set([
  '-f',
  '--file',
  '-p',
  '--project-name',
  '--profile',
  '--env-file',
  '--project-directory',
  '--ansi',
  '--parallel',
]);
const DOCKER_RESTART_VERBS = new Set(['restart', 'stop', 'start', 'kill']);
const SYSTEMCTL_RESTART_VERBS = new Set([
  'restart',
  'stop',
  'start',
  'try-restart',
  'reload-or-restart',
  'kill',
]);
const MAX_DEPTH = 8;

function base(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}

/** A target as a service name: lower-cased, without `.service` or `deployment/` decorations. */
export function targetName(word: string): string {
  return word
    .toLowerCase()
    .replace(/^(deployment|deploy|statefulset|sts|daemonset|ds)\//, '')
    .replace(/\.service$/, '');
}

function operands(words: string[], withArg: Set<string> = new Set()): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i += 1) {
    const w = words[i]!;
    if (w === '--') {
      out.push(...words.slice(i + 1));
      break;
    }
    if (w.startsWith('-')) {
      if (withArg.has(w)) i += 1;
      continue;
    }
    out.push(w);
  }
  return out;
}

/** Every restart or redeployment a command line would perform. */
export function remediationIntents(command: string, depth = 0): RemediationIntent[] {
  if (depth > MAX_DEPTH) return [];
  const { commands, nested } = splitShell(command);
  const out: RemediationIntent[] = [];
  for (const words of commands) out.push(...fromWords(words, depth));
  for (const script of nested) out.push(...remediationIntents(script, depth + 1));
  return out;
}

function fromWords(input: string[], depth: number): RemediationIntent[] {
  let words = input;
  // Peel off wrappers: VAR=x, env, sudo, timeout 30, nohup ...
  for (;;) {
    const w = words[0];
    if (w === undefined) return [];
    const name = base(w);
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) words = words.slice(1);
    else if (name === 'env')
      words = words
        .slice(1)
        .filter((x, i, a) => !(i < a.findIndex((y) => !y.includes('=') && !y.startsWith('-'))));
    else if (WRAPPERS_WITH_ARG.has(name)) {
      const withArg = WRAPPERS_WITH_ARG.get(name)!;
      let i = 1;
      while (i < words.length && words[i]!.startsWith('-')) i += withArg.has(words[i]!) ? 2 : 1;
      if (name === 'timeout' && i < words.length) i += 1; // the duration
      words = words.slice(i);
    } else if (PLAIN_WRAPPERS.has(name)) {
      let i = 1;
      while (i < words.length && words[i]!.startsWith('-')) i += 1;
      words = words.slice(i);
    } else break;
  }
  const [first, ...rest] = words;
  if (first === undefined) return [];
  const name = base(first);

  if (SHELLS.has(name)) {
    const c = rest.findIndex((w) => /^-[a-z]*c[a-z]*$/.test(w));
    return c === -1 || rest[c + 1] === undefined ? [] : remediationIntents(rest[c + 1]!, depth + 1);
  }
  if (name === 'ssh') {
    let i = 0;
    while (i < rest.length && rest[i]!.startsWith('-'))
      i += SSH_OPTS_WITH_ARG.has(rest[i]!) ? 2 : 1;
    const remote = rest.slice(i + 1); // after the host
    return remote.length === 0 ? [] : remediationIntents(remote.join(' '), depth + 1);
  }
  if (name === 'docker' || name === 'podman') {
    let i = 0;
    while (i < rest.length && rest[i]!.startsWith('-'))
      i += DOCKER_GLOBAL_WITH_ARG.has(rest[i]!) ? 2 : 1;
    let sub = rest.slice(i);
    if (sub[0] === 'container') sub = sub.slice(1);
    if (sub[0] === 'compose') return compose(sub.slice(1));
    if (sub[0] !== undefined && DOCKER_RESTART_VERBS.has(sub[0])) {
      const targets = operands(sub.slice(1), new Set(['-t', '--time', '-s', '--signal'])).map(
        targetName,
      );
      return targets.length ? [{ action: 'restart', targets, untargeted: false }] : [];
    }
    return [];
  }
  if (name === 'docker-compose' || name === 'podman-compose') return compose(rest);
  if (name === 'systemctl') {
    const ops = operands(rest, new Set(['-H', '--host', '-M', '--machine', '-s', '--signal']));
    if (ops[0] !== undefined && SYSTEMCTL_RESTART_VERBS.has(ops[0])) {
      return [
        { action: 'restart', targets: ops.slice(1).map(targetName), untargeted: ops.length === 1 },
      ];
    }
    return [];
  }
  if (
    name === 'service' &&
    rest.length >= 2 &&
    /^(restart|stop|start|force-reload)$/.test(rest[1]!)
  ) {
    return [{ action: 'restart', targets: [targetName(rest[0]!)], untargeted: false }];
  }
  if (name === 'kubectl') {
    const ops = operands(rest, new Set(['-n', '--namespace', '--context', '-l', '--selector']));
    if (ops[0] === 'rollout' && ops[1] === 'restart') {
      return [
        { action: 'restart', targets: ops.slice(2).map(targetName), untargeted: ops.length === 2 },
      ];
    }
    return [];
  }
  if (name === 'helm') {
    const ops = operands(
      rest,
      new Set([
        '-f',
        '--values',
        '-n',
        '--namespace',
        '--set',
        '--version',
        '--kube-context',
        '--timeout',
      ]),
    );
    if (ops[0] === 'upgrade' || ops[0] === 'install') {
      return [
        {
          action: 'redeployment',
          targets: ops[1] ? [targetName(ops[1])] : [],
          untargeted: !ops[1],
        },
      ];
    }
    return [];
  }
  if (name === 'ansible-playbook' || name === 'ansible') {
    return [{ action: 'redeployment', targets: [], untargeted: true }];
  }
  return [];
}

function compose(args: string[]): RemediationIntent[] {
  const ops = operands(args, COMPOSE_OPTS_WITH_ARG);
  const verb = ops[0];
  if (verb === undefined) return [];
  const services = ops.slice(1).map(targetName);
  if (verb === 'up')
    return [{ action: 'redeployment', targets: services, untargeted: services.length === 0 }];
  if (DOCKER_RESTART_VERBS.has(verb)) {
    return [{ action: 'restart', targets: services, untargeted: services.length === 0 }];
  }
  return [];
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** True when `service` is `target`, or stands as a delimited part of it (media-jellyfin-1). */
export function targetMatches(target: string, service: string): boolean {
  if (target === service) return true;
  return new RegExp(`(^|[-_./:@])${escapeRegExp(service)}($|[-_./:@])`).test(target);
}

/** True when the command text mentions `service` as a whole word (for untargeted commands). */
export function mentions(command: string, service: string): boolean {
  return new RegExp(`(^|[^A-Za-z0-9])${escapeRegExp(service)}($|[^A-Za-z0-9])`, 'i').test(command);
}
