/**
 * Docker, Podman and nerdctl, compose, swarm services and stacks: which of their commands
 * restart or redeploy what. A compose command without a service acts on the whole project, a
 * pod or a stack on all it holds; an unknown subcommand falls to the fail-closed rule. Pure.
 */
import type { CooldownAction } from '../../stream/index.js';
import { type Env, everything, type Handler, insideContainer, named, unresolved } from './env.js';
import { has, type OptionSpec, scanOptions, values, wordsOf, wordSet } from './options.js';
import { literal, litWord, type Word, wordText } from './words.js';

const GLOBAL: OptionSpec = {
  short: 'Hcl',
  long: wordsOf('host context config log-level tlscacert tlscert tlskey url'),
};
const RESTART = wordSet('restart stop start kill rm pause unpause');
const QUIET = wordSet(`
  ps ls logs inspect images image stats top version info events port diff history search login
  logout pull push tag save load network volume system context buildx build builder cp export
  import commit wait attach update rename plugin secret config manifest trust scout init help
  healthcheck machine`);
const RUN: OptionSpec = {
  short: 'eEvpwuhlcmaI',
  long: wordsOf(`
    name env env-file volume publish workdir user hostname label network net restart entrypoint
    memory cpus mount device add-host cap-add cap-drop log-driver log-opt pull platform
    health-cmd ulimit dns expose link gpus ipc pid security-opt shm-size tmpfs volumes-from
    stop-signal stop-timeout group-add network-alias ip mac-address runtime detach-keys cidfile
    attach pod`),
};
const EXEC: OptionSpec = { short: 'euw', long: wordsOf('env env-file user workdir detach-keys') };
const SERVICE_UPDATE: OptionSpec = {
  short: 'elu',
  long: wordsOf(`
    image env-add env-rm label-add label-rm replicas mount-add mount-rm publish-add publish-rm
    constraint-add constraint-rm args update-parallelism update-delay rollback-parallelism
    limit-cpu limit-memory reserve-cpu reserve-memory secret-add secret-rm config-add config-rm
    network-add network-rm user workdir hostname entrypoint`),
  permute: true,
};

export const docker: Handler = (args, stdin, env, program) => {
  const global = scanOptions(args, GLOBAL);
  if (global.unresolved) return unresolved(env, args, `\`${program}\` options could not be read`);
  let [sub, ...rest] = global.operands;
  if (sub && literal(sub) === 'container') [sub, ...rest] = rest;
  if (!sub) return;
  const verb = literal(sub);
  if (verb === null)
    return unresolved(env, global.operands, `its \`${program}\` command cannot be resolved`, true);
  const what = `\`${program} ${verb}\``;
  if (RESTART.has(verb)) {
    const scan = scanOptions(rest, {
      short: 'ts',
      long: wordsOf('time signal timeout'),
      permute: true,
    });
    return named(env, 'restart', scan.operands, `${what} restarts or stops it`);
  }
  switch (verb) {
    case 'compose':
      return compose(rest, stdin, env, `${program} compose`);
    case 'run':
    case 'create': {
      const names = values(scanOptions(rest, RUN), '--name');
      if (names.length > 0) named(env, 'redeployment', names, `${what} --name recreates it`);
      return;
    }
    case 'exec': {
      const [container, ...inner] = scanOptions(rest, EXEC).operands;
      return container ? insideContainer(env, container, inner, stdin) : undefined;
    }
    case 'pod':
      return pod(rest, env, program);
    case 'service':
      return swarmService(rest, env, program);
    case 'stack':
      if (/^(deploy|up|rm|remove|down)$/.test(literal(rest[0] ?? []) ?? ''))
        everything(env, ['redeployment'], `${what} acts on every service of the stack`);
      return;
    case 'node':
      if (rest.some((w) => wordText(w).includes('drain')))
        everything(env, ['restart'], `${what} drains a node, moving every service on it`);
      return;
    case 'play':
    case 'kube':
    case 'auto-update':
      return everything(env, ['redeployment'], `${what} redeploys services the guard cannot see`);
  }
  if (!QUIET.has(verb))
    unresolved(env, global.operands, `${what} is not a command the guard knows`);
};

/** A pod restarts every container in it, and which services those are is not in the command. */
function pod(rest: Word[], env: Env, program: string): void {
  const verb = literal(rest[0] ?? []);
  if (verb === null)
    return unresolved(env, rest, `its \`${program} pod\` command cannot be resolved`, true);
  if (verb !== undefined && RESTART.has(verb))
    everything(env, ['restart'], `\`${program} pod ${verb}\` acts on every container of the pod`);
}

function swarmService(rest: Word[], env: Env, program: string): void {
  const scan = scanOptions(rest, SERVICE_UPDATE);
  const [op, ...names] = scan.operands;
  if (!op) return;
  const verb = literal(op);
  if (verb === null)
    return unresolved(env, rest, `its \`${program} service\` command cannot be resolved`, true);
  const what = `\`${program} service ${verb}\``;
  if (verb === 'update') {
    const action: CooldownAction =
      has(scan, '--force') && !has(scan, '--image', '--rollback') ? 'restart' : 'redeployment';
    return named(env, action, names, `${what} replaces its tasks`);
  }
  if (verb === 'rollback') return named(env, 'redeployment', names, `${what} redeploys it`);
  if (verb === 'rm' || verb === 'remove' || verb === 'scale') {
    // `scale jellyfin=0`
    const services = names.map((w) => {
      const lit = literal(w);
      return lit?.includes('=') ? litWord(lit.slice(0, lit.indexOf('='))) : w;
    });
    named(env, 'restart', services, `${what} stops its tasks`);
  }
}

const COMPOSE: OptionSpec = {
  short: 'fp',
  long: wordsOf('file project-name profile env-file project-directory ansi parallel progress'),
};
const COMPOSE_VERB: OptionSpec = {
  short: 'tsS',
  long: wordsOf('timeout signal scale exit-code-from attach no-attach pull wait-timeout rmi'),
  permute: true,
};
const COMPOSE_ACTIONS: Record<string, CooldownAction> = {
  restart: 'restart',
  stop: 'restart',
  start: 'restart',
  kill: 'restart',
  rm: 'restart',
  down: 'restart',
  pause: 'restart',
  unpause: 'restart',
  up: 'redeployment',
  create: 'redeployment',
  watch: 'redeployment',
};
const COMPOSE_QUIET = wordSet(`
  ps ls logs config convert images top port events version pull build push cp run wait stats
  attach alpha commit export volumes help`);

export const compose: Handler = (args, stdin, env, program) => {
  const global = scanOptions(args, COMPOSE);
  if (global.unresolved) return unresolved(env, args, `\`${program}\` options could not be read`);
  const [sub, ...rest] = global.operands;
  if (!sub) return;
  const verb = literal(sub);
  if (verb === null)
    return unresolved(env, global.operands, `its \`${program}\` command cannot be resolved`, true);
  if (verb === 'exec') {
    const [service, ...inner] = scanOptions(rest, EXEC).operands;
    return service ? insideContainer(env, service, inner, stdin) : undefined;
  }
  const action = COMPOSE_ACTIONS[verb];
  if (!action) {
    if (!COMPOSE_QUIET.has(verb))
      unresolved(env, global.operands, `\`${program} ${verb}\` is not a command the guard knows`);
    return;
  }
  const what = `\`${program} ${verb}\``;
  const services = scanOptions(rest, COMPOSE_VERB).operands;
  if (services.length === 0)
    return everything(
      env,
      [action],
      `${what} names no service, so it acts on every service of the project`,
    );
  named(env, action, services, `${what} acts on it`);
};
