/**
 * `pkill`, `killall` and `kill`: killing a service's processes restarts it (or stops it). Pure.
 */
import { type Handler, named, unresolved } from './env.js';
import { parseGlob } from './glob.js';
import { has, scanOptions, wordsOf } from './options.js';
import { literal, type Word, wordSource } from './words.js';

const SIGNAL = /^-(\d+|[A-Z][A-Z0-9+-]*|SIG[A-Z0-9+-]+)$/;

/** `-9`, `-HUP`, `-SIGTERM` first: not a cluster of options. */
function withoutSignal(args: readonly Word[]): Word[] {
  const first = args[0] && literal(args[0]);
  return first && SIGNAL.test(first) ? args.slice(1) : [...args];
}

/** A pkill pattern (an extended regex, matched anywhere in the name) as a glob. */
function regexGlob(pattern: string): string {
  if (/[|()\\{}+]/.test(pattern.replace(/\.\+/g, ''))) return '*';
  const body = pattern.replace(/\.[*+]/g, '*').replace(/\./g, '?');
  const start = body.startsWith('^') ? '' : '*';
  const end = body.endsWith('$') ? '' : '*';
  return `${start}${body.replace(/^\^/, '').replace(/\$$/, '')}${end}`;
}

function byPattern(env: Parameters<Handler>[2], w: Word, why: string, recordAs: string | null) {
  const lit = literal(w);
  if (lit === null) return unresolved(env, [w], why, true);
  env.emit({
    action: 'restart',
    targets: recordAs ? [recordAs] : [],
    patterns: [{ source: lit, glob: parseGlob(regexGlob(lit.toLowerCase())) }],
    mentions: [],
    untargeted: false,
    why,
  });
}

export const pkill: Handler = (args, _stdin, env, program) => {
  const scan = scanOptions(withoutSignal(args), {
    short: 'gGPstuUFq',
    long: wordsOf('signal group parent session terminal euid uid pidfile ns nslist cgroup'),
    permute: true,
  });
  const full = has(scan, '-f', '--full');
  for (const w of scan.operands) {
    const lit = literal(w);
    const plainName = lit !== null && !full && /^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(lit);
    byPattern(
      env,
      w,
      `\`${program} ${wordSource(w)}\` kills its processes`,
      plainName ? lit.toLowerCase() : null,
    );
  }
};

export const killall: Handler = (args, _stdin, env, program) => {
  const scan = scanOptions(withoutSignal(args), {
    short: 'suynoZ',
    long: wordsOf('signal user younger-than older-than ns context'),
    permute: true,
  });
  if (!has(scan, '-r', '--regexp')) {
    if (scan.operands.length > 0)
      named(env, 'restart', scan.operands, `\`${program}\` kills its processes`);
    return;
  }
  for (const w of scan.operands)
    byPattern(env, w, `\`${program} -r ${wordSource(w)}\` kills its processes`, null);
};

/**
 * `kill PID`: pids cannot be resolved, but where they come from can name the service
 * (`kill $(pidof jellyfin)`); inside a container any kill counts against the container.
 */
export const kill: Handler = (args, _stdin, env, program) => {
  const scan = scanOptions(withoutSignal(args), { short: 'sn', numeric: true });
  if (has(scan, '-l', '-L') || scan.operands.length === 0) return;
  const pids = scan.operands.map(wordSource);
  env.emit({
    action: 'restart',
    targets: [],
    patterns: [],
    mentions: pids,
    untargeted: false,
    why: `\`${program} ${pids.join(' ')}\` kills its processes`,
  });
};
