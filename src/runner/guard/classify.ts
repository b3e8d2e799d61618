/**
 * One simple command, its words expanded: which program it runs and what that program would do
 * to services. Known programs go to their classifier; programs known to leave services alone
 * pass; anything else is checked by the fail-closed rule (a restart-like word together with a
 * word naming a service). Pure.
 */
import { alias, shopt } from './aliases.js';
import { compose, docker } from './docker.js';
import { type Env, type Handler, type Input, unknownProgram, unresolved } from './env.js';
import { git } from './git.js';
import { kill, killall, pkill } from './killers.js';
import { fc, sort, tar } from './option-hooks.js';
import { ansible, ansiblePlaybook } from './ansible.js';
import { helm } from './helm.js';
import { kubectl } from './kubectl.js';
import {
  initScript,
  launchctl,
  machine,
  monit,
  pm2,
  rcService,
  s6svc,
  service,
  supervisorctl,
  sv,
  systemctl,
} from './services.js';
import { literal, type Word } from './words.js';
import { awk, interpreterFor, sed } from './interpreters.js';
import { runFile, shell, source } from './shells.js';
import { vim } from './vim.js';
import { WRAPPERS } from './wrappers.js';

const HANDLERS: Record<string, Handler> = {
  ...WRAPPERS,
  docker,
  podman: docker,
  nerdctl: docker,
  'docker-compose': compose,
  'podman-compose': compose,
  'nerdctl-compose': compose,
  crictl: (args, stdin, env, program) =>
    docker(
      args.length > 0 && ['stopp', 'rmp'].includes(literal(args[0]!) ?? '')
        ? [[{ t: 'lit', s: 'stop', glob: false }], ...args.slice(1)]
        : args,
      stdin,
      env,
      program,
    ),
  systemctl,
  service,
  'invoke-rc.d': rcService,
  'rc-service': rcService,
  sv,
  's6-svc': s6svc,
  supervisorctl,
  pm2,
  monit,
  launchctl,
  reboot: machine,
  shutdown: machine,
  poweroff: machine,
  halt: machine,
  init: machine,
  telinit: machine,
  kubectl,
  oc: kubectl,
  helm,
  'ansible-playbook': ansiblePlaybook,
  ansible,
  pkill,
  killall,
  kill,
  sh: shell,
  bash: shell,
  zsh: shell,
  dash: shell,
  ash: shell,
  ksh: shell,
  mksh: shell,
  yash: shell,
  rbash: shell,
  fish: shell,
  source,
  '.': source,
  awk,
  gawk: awk,
  mawk: awk,
  nawk: awk,
  sed,
  gsed: sed,
  alias,
  shopt,
  git,
  tar,
  sort,
  fc,
  vi: vim,
  vim,
  'vim.basic': vim,
  'vim.tiny': vim,
  nvim: vim,
  gvim: vim,
  vimdiff: vim,
  view: vim,
  ex: vim,
};

/** Wrappers that hand their arguments to a sub-tool: `k3s kubectl`, `microk8s kubectl`. */
const TOOLBOXES = new Set(['k3s', 'microk8s', 'minikube', 'k0s']);

/**
 * Programs that never restart or redeploy anything, whatever their arguments say (`grep
 * restart`, `journalctl -u x`, `echo "docker restart x"`).
 */
const QUIET = new Set(
  (
    'echo printf cat tac less more head tail grep egrep fgrep rg ag zgrep wc uniq cut tr ' +
    'column jq yq diff cmp comm ls ll stat file du df free uptime date whoami id hostname ' +
    'uname ps pgrep pidof top htop lsof ss netstat ip ifconfig ping traceroute tracepath mtr ' +
    'dig nslookup host journalctl dmesg test [ [[ true false : sleep cd pwd pushd popd which ' +
    'type whereis man help readlink realpath basename dirname mkdir touch cp mv ln chmod chown ' +
    'rm rmdir tee xxd od hexdump base64 md5sum sha1sum sha256sum sha512sum openssl gzip ' +
    'gunzip zcat bzip2 xz unzip zip nano history unalias export unset set ' +
    'declare local readonly typeset read wait jobs fg bg disown shift getopts let ' +
    'return exit break continue nproc lscpu lsblk blkid mount findmnt env-update locale tput ' +
    'clear stty seq yes nl fold fmt paste join split expand unexpand iconv strings sum cksum ' +
    'getent groups last w who lastlog vmstat iostat mpstat sar pidstat nstat iftop iotop ' +
    'nvidia-smi sensors smartctl docker-credential-helper mktemp tempfile printenv wc'
  ).split(/\s+/),
);

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

export function classifyCommand(argv: Word[], stdin: Input, env: Env): void {
  const [first, ...args] = argv;
  if (!first) return;
  env.engine.watch?.command(argv);
  const path = literal(first);
  if (path === null) return unknownProgram(env, argv);
  const program = basename(path);
  if (/(^|\/)(init\.d|rc\.d)\/[^/]+$/.test(path)) return initScript(args, stdin, env, path);
  if (TOOLBOXES.has(program)) {
    const rest = args[0] && literal(args[0]) === '--' ? args.slice(1) : args;
    return classifyCommand(rest, stdin, env);
  }
  const handler = HANDLERS[program] ?? interpreterFor(program);
  if (handler) return handler(args, stdin, env, program);
  if (program.startsWith('microk8s.'))
    return classifyCommand([[{ t: 'lit', s: program.slice(9), glob: false }], ...args], stdin, env);
  if (QUIET.has(program)) return;
  if (path.includes('/') && env.engine.file(path) !== undefined)
    return runFile(env, first, args, stdin, path, (text, input) =>
      env.engine.script(text, input, `\`${path}\` runs it`, env),
    );
  unresolved(env, argv, `\`${program}\` is not a command the guard knows`);
}
