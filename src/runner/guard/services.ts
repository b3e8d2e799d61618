/**
 * Service managers: systemd, SysV init scripts and `service`, OpenRC, runit, s6, supervisord,
 * pm2, monit, launchd, and the commands that reboot the machine. Which of their verbs restart
 * or stop what; a verb the guard does not know falls to the fail-closed rule. Pure.
 */
import { type Env, everything, type Handler, named, unresolved } from './env.js';
import { patternOf, targetName, targetsOf } from './intent.js';
import { has, type OptionSpec, scanOptions, wordsOf, wordSet } from './options.js';
import { literal, litWord, type Word, wordText } from './words.js';

const SYSTEMCTL: OptionSpec = {
  short: 'tpsHMnoP',
  long: wordsOf(`
    type property signal host machine lines output state kill-whom kill-value root image what
    when job-mode preset-mode boot-loader-entry reboot-argument timestamp message drop-in`),
  permute: true,
};
const SYSTEMCTL_RESTART = wordSet(`
  restart stop start try-restart reload-or-restart try-reload-or-restart force-reload
  condrestart kill freeze clean`);
const SYSTEMCTL_MACHINE = wordSet(`
  reboot poweroff halt kexec soft-reboot emergency rescue default isolate switch-root`);
const SYSTEMCTL_NOW = wordSet('enable disable mask reenable unmask preset');
const SYSTEMCTL_QUIET = wordSet(`
  status show cat help is-active is-enabled is-failed is-system-running daemon-reload reload
  get-default set-default list-units list-unit-files list-timers list-sockets list-jobs
  list-dependencies list-machines list-automounts list-paths show-environment set-environment
  unset-environment import-environment edit link revert add-wants add-requires set-property
  reset-failed log-level log-target service-log-level service-log-target thaw whoami enable
  disable mask unmask reenable preset preset-all`);

/** Where a verb the program does not know is handled: `${what} is not a command ...`. */
function unknownVerb(env: Env, words: readonly Word[], what: string): void {
  unresolved(env, words, `${what} is not a command the guard knows`);
}

function unreadableVerb(env: Env, words: readonly Word[], program: string): void {
  unresolved(env, words, `its \`${program}\` command cannot be resolved`, true);
}

export const systemctl: Handler = (args, _stdin, env, program) => {
  const scan = scanOptions(args, SYSTEMCTL);
  const [sub, ...units] = scan.operands;
  if (!sub) return;
  const verb = literal(sub);
  if (verb === null || scan.unresolved) return unreadableVerb(env, args, program);
  const what = `\`${program} ${verb}\``;
  if (SYSTEMCTL_MACHINE.has(verb))
    return everything(env, ['restart'], `${what} stops or restarts every service`);
  if (!SYSTEMCTL_RESTART.has(verb) && !(SYSTEMCTL_NOW.has(verb) && has(scan, '--now'))) {
    if (!SYSTEMCTL_QUIET.has(verb)) unknownVerb(env, scan.operands, what);
    return;
  }
  if (units.length === 0) return everything(env, ['restart'], `${what} names no unit`);
  // systemctl matches unit globs itself, quoted or not.
  const globs = units.filter((w) => /[*?[]/.test(literal(w) ?? ''));
  const { targets, patterns } = targetsOf(units.filter((w) => !globs.includes(w)));
  env.emit({
    action: 'restart',
    targets,
    patterns: [...patterns, ...globs.map((w) => patternOf(w, targetName))],
    mentions: [],
    untargeted: false,
    why: `${what} restarts or stops it`,
  });
};

const INIT_RESTART = wordSet(`
  restart stop start force-reload try-restart condrestart force-stop force-restart zap pause
  resume --full-restart`);
const INIT_QUIET = wordSet('status reload describe configtest help usage --status-all');

/** `service X verb`, `invoke-rc.d X verb`, `rc-service X verb`, `/etc/init.d/X verb`. */
function initVerb(env: Env, service: Word, rest: readonly Word[], what: string): void {
  const verbWord = rest.find((w) => !/^-[a-z]$/.test(wordText(w)));
  if (!verbWord) return;
  const verb = literal(verbWord);
  if (verb === null) return unreadableVerb(env, [service, ...rest], what);
  if (INIT_RESTART.has(verb))
    return named(env, 'restart', [service], `\`${what} ${verb}\` restarts or stops it`);
  if (!INIT_QUIET.has(verb)) unknownVerb(env, [service, ...rest], `\`${what} ${verb}\``);
}

export const service: Handler = (args, _stdin, env, program) => {
  const [name, ...rest] = args.filter((w) => literal(w) !== '--full-restart');
  const full = args.some((w) => literal(w) === '--full-restart');
  if (name) initVerb(env, name, full ? [litWord('--full-restart')] : rest, program);
};

export const initScript: Handler = (args, _stdin, env, program) => {
  initVerb(env, litWord(program.slice(program.lastIndexOf('/') + 1)), args, program);
};

/** invoke-rc.d and rc-service take flags before the service. */
export const rcService: Handler = (args, _stdin, env, program) => {
  const [name, ...rest] = scanOptions(args, {}).operands;
  if (name) initVerb(env, name, rest, program);
};

const basename = (w: Word): Word => {
  const lit = literal(w);
  return lit === null ? w : litWord(lit.replace(/\/+$/, '').replace(/^.*\//, ''));
};

export const sv: Handler = (args, _stdin, env, program) => {
  const [sub, ...names] = scanOptions(args, { short: 'w' }).operands;
  if (!sub) return;
  const verb = literal(sub);
  if (verb === null) return unreadableVerb(env, args, program);
  if (!/^(s|status|check|c)$/.test(verb))
    named(env, 'restart', names.map(basename), `\`${program} ${verb}\` controls it`);
};

export const s6svc: Handler = (args, _stdin, env, program) => {
  const scan = scanOptions(args, { short: 'Tsw' });
  if (scan.options.size === 0 || (scan.options.size === 1 && has(scan, '-a'))) return;
  named(env, 'restart', scan.operands.map(basename), `\`${program}\` signals or restarts it`);
};

const SUPERVISOR_CHANGE = wordSet('restart stop start signal update remove add');
const SUPERVISOR_QUIET = wordSet('status avail tail fg pid version help maintail open reread');

export const supervisorctl: Handler = (args, _stdin, env, program) => {
  const scan = scanOptions(args, {
    short: 'csupr',
    long: wordsOf('configuration serverurl username password history-file'),
  });
  const [sub, ...rest] = scan.operands;
  if (!sub) return;
  const verb = literal(sub);
  if (verb === null) return unreadableVerb(env, args, program);
  const what = `\`${program} ${verb}\``;
  if (SUPERVISOR_QUIET.has(verb)) return;
  const names = verb === 'signal' ? rest.slice(1) : rest;
  if (verb === 'reload' || verb === 'shutdown' || (verb === 'update' && names.length === 0))
    return everything(env, ['restart'], `${what} restarts every program`);
  if (!SUPERVISOR_CHANGE.has(verb)) return unknownVerb(env, scan.operands, what);
  if (names.some((w) => literal(w) === 'all'))
    return everything(env, ['restart'], `${what} all acts on every program`);
  // `group:*` names the group; `group:name` stays whole (both parts match by the delimiter rule).
  const programs = names.map((w) => {
    const lit = literal(w);
    return lit?.endsWith(':*') ? litWord(lit.slice(0, -2)) : w;
  });
  named(env, 'restart', programs, `${what} controls it`);
};

const PM2_CHANGE = wordSet(
  'restart reload stop delete del start startOrRestart startOrReload gracefulReload',
);
const PM2_QUIET = wordSet(
  'list ls status logs show describe info monit save jlist prettylist env ping flush',
);

export const pm2: Handler = (args, _stdin, env, program) => {
  const [sub, ...names] = scanOptions(args, { permute: true }).operands;
  if (!sub) return;
  const verb = literal(sub);
  if (verb === null) return unreadableVerb(env, args, program);
  const what = `\`${program} ${verb}\``;
  if (verb === 'kill') return everything(env, ['restart'], `${what} stops every process`);
  if (!PM2_CHANGE.has(verb)) return PM2_QUIET.has(verb) ? undefined : unknownVerb(env, args, what);
  if (names.length === 0 || names.some((w) => literal(w) === 'all'))
    return everything(env, ['restart'], `${what} acts on every process`);
  named(env, 'restart', names, `${what} controls it`);
};

export const monit: Handler = (args, _stdin, env, program) => {
  const [sub, ...names] = scanOptions(args, { short: 'cdglpsH' }).operands;
  if (!sub) return;
  const verb = literal(sub);
  if (verb === null) return unreadableVerb(env, args, program);
  if (!/^(restart|stop|start|unmonitor|monitor)$/.test(verb)) return;
  if (names.some((w) => literal(w) === 'all'))
    return everything(env, ['restart'], `\`${program} ${verb} all\` acts on every service`);
  named(env, 'restart', names, `\`${program} ${verb}\` controls it`);
};

export const launchctl: Handler = (args, _stdin, env, program) => {
  const [sub, ...rest] = args;
  if (!sub) return;
  const verb = literal(sub);
  if (verb === null) return unreadableVerb(env, args, program);
  if (!/^(kickstart|kill|stop|start|bootout|unload|remove|restart)$/.test(verb)) return;
  const labels = scanOptions(rest, { permute: true }).operands.filter(
    (w) => !/^(SIG)?[A-Z0-9]+$/.test(wordText(w)), // `launchctl kill TERM label`
  );
  named(env, 'restart', labels, `\`${program} ${verb}\` controls it`);
};

/** reboot, shutdown, poweroff, halt, `init 6`. */
export const machine: Handler = (args, _stdin, env, program) => {
  if (program === 'shutdown' && args.some((w) => literal(w) === '-c')) return;
  const runlevel = args.some((w) => /^[0-6sS]$/.test(wordText(w)));
  if ((program === 'init' || program === 'telinit') && !runlevel) return;
  everything(env, ['restart'], `\`${program}\` stops or restarts every service`);
};
