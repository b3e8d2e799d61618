/**
 * Commands that run other commands: wrappers (`sudo -iu root`, `timeout -s KILL 5`, `env -u X`,
 * `nice -n 5`, `xargs`, `find -exec`, `watch`), shells (`sh -c`, `bash -c --`, a script on
 * stdin), `eval` and ssh (interpreters are in interpreters.ts). Each hands the inner command
 * back to the engine. Pure.
 */
import { shellVariableWord } from './aliases.js';
import {
  type Env,
  everything,
  BOTH,
  type Handler,
  type Input,
  NO_INPUT,
  unknownProgram,
  unresolved,
} from './env.js';
import { has, type OptionSpec, scanOptions, values, wordsOf } from './options.js';
import {
  joinWords,
  literal,
  litWord,
  UNKNOWN_MARK,
  unknownWord,
  type Word,
  wordSource,
  wordText,
} from './words.js';

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

function skipAssignments(words: readonly Word[], env?: Env): Word[] {
  let i = 0;
  for (; i < words.length && ASSIGNMENT.test(wordText(words[i]!)); i += 1)
    if (env) shellVariableWord(env, wordText(words[i]!));
  return words.slice(i);
}

/**
 * A wrapper whose options are read by `spec`; its first operand is the command it runs. Without
 * one, some start a shell reading commands from stdin: always (`nsenter`), or with one of the
 * listed options (`sudo -s`, `sudo -i`).
 */
function wrapper(
  spec: OptionSpec,
  opts: { assignments?: boolean; shell?: true | string[] } = {},
): Handler {
  return (args, stdin, env, program) => {
    const scan = scanOptions(args, spec);
    if (scan.unresolved) return unknownProgram(env, [unknownWord(`${program} ...`), ...args]);
    const inner = opts.assignments ? skipAssignments(scan.operands, env) : scan.operands;
    if (inner.length > 0) return env.engine.classify(inner, stdin, env);
    const shell = opts.shell;
    if (shell === true || shell?.some((k) => scan.options.has(k)))
      shellFromStdin(env, stdin, `\`${program}\` starts a shell`);
  };
}

export const WRAPPERS: Record<string, Handler> = {
  sudo: wrapper(
    {
      short: 'CDghpRrTtUuc',
      long: wordsOf(`
    user group host prompt chdir chroot close-from role type other-user command-timeout
    login-class`),
    },
    { assignments: true, shell: ['-i', '-s', '--login', '--shell'] },
  ),
  doas: wrapper({ short: 'aCu' }, { shell: ['-s'] }),
  timeout: (args, stdin, env, program) => {
    const scan = scanOptions(args, { short: 'sk', long: ['signal', 'kill-after'] });
    if (scan.unresolved) return unknownProgram(env, [unknownWord(program), ...args]);
    env.engine.classify(scan.operands.slice(1), stdin, env); // after the duration
  },
  nice: wrapper({ short: 'n', long: ['adjustment'], numeric: true }),
  ionice: wrapper({ short: 'cnpPu', long: ['class', 'classdata', 'pid', 'pgid', 'uid'] }),
  stdbuf: wrapper({ short: 'ioe', long: ['input', 'output', 'error'] }),
  setsid: wrapper({}),
  nohup: wrapper({}),
  exec: wrapper({ short: 'a' }),
  builtin: wrapper({}),
  time: wrapper({ short: 'fo', long: ['format', 'output'] }),
  chrt: (args, stdin, env, program) => {
    const scan = scanOptions(args, {
      short: 'T',
      long: ['sched-runtime', 'sched-deadline', 'sched-period'],
    });
    if (scan.unresolved) return unknownProgram(env, [unknownWord(program), ...args]);
    env.engine.classify(scan.operands.slice(1), stdin, env); // after the priority
  },
  taskset: (args, stdin, env, program) => {
    const scan = scanOptions(args, {});
    if (scan.unresolved) return unknownProgram(env, [unknownWord(program), ...args]);
    if (!has(scan, '-p', '--pid')) env.engine.classify(scan.operands.slice(1), stdin, env);
  },
  chroot: (args, stdin, env, program) => {
    const scan = scanOptions(args, { long: ['userspec', 'groups'] });
    if (scan.unresolved) return unknownProgram(env, [unknownWord(program), ...args]);
    const inner = scan.operands.slice(1);
    if (inner.length === 0) return shellFromStdin(env, stdin, `\`${program}\` starts a shell`);
    env.engine.classify(inner, stdin, env);
  },
  nsenter: wrapper(
    {
      short: 'tSGe',
      attached: 'muinpUCTrwN',
      long: ['target', 'setuid', 'setgid', 'env'],
    },
    { shell: true },
  ),
  unshare: wrapper(
    { attached: 'muinpUCTr', long: ['setuid', 'setgid', 'map-user', 'map-group'] },
    { shell: true },
  ),
  systemd_run: wrapper({
    short: 'upEMHS',
    long: wordsOf(`
    unit property setenv machine host description slice on-active on-boot on-startup
    on-unit-active on-unit-inactive on-calendar on-timezone-change on-clock-change
    working-directory uid gid nice service-type timer-property path-property socket-property`),
  }),
  strace: wrapper({
    short: 'eoOpsuEPabIXS',
    long: ['output', 'attach', 'user', 'env', 'trace-path'],
  }),
  ltrace: wrapper({ short: 'eoapsuEnAlLfF', long: ['output'] }),
  flock: (args, stdin, env, program) => {
    const scan = scanOptions(args, {
      short: 'wEc',
      long: ['timeout', 'conflict-exit-code', 'command'],
    });
    if (scan.unresolved) return unknownProgram(env, [unknownWord(program), ...args]);
    const commands = values(scan, '-c', '--command');
    const [, ...rest] = scan.operands; // the lock file
    if (commands.length > 0) {
      for (const c of commands)
        env.engine.script(wordText(c), stdin, `\`${program} -c\` runs it`, env);
      return;
    }
    const after = rest[0] && literal(rest[0]);
    if (after === '-c' || after === '--command') {
      if (rest[1]) env.engine.script(wordText(rest[1]), stdin, `\`${program} -c\` runs it`, env);
      return;
    }
    if (rest.length > 0) env.engine.classify(rest, stdin, env);
  },
  env: (args, stdin, env, program) => {
    const scan = scanOptions(args, { short: 'uCSP', long: ['unset', 'chdir', 'split-string'] });
    if (scan.unresolved) return unknownProgram(env, [unknownWord(program), ...args]);
    const split = values(scan, '-S', '--split-string');
    const inner = skipAssignments(scan.operands, env);
    if (split.length > 0) {
      const text = [...split.map(wordText), ...inner.map(wordText)].join(' ');
      return env.engine.script(text, stdin, `\`${program} -S\` runs it`, env);
    }
    if (inner.length > 0) env.engine.classify(inner, stdin, env);
  },
  command: (args, stdin, env) => {
    const scan = scanOptions(args, {});
    if (has(scan, '-v', '-V')) return; // a lookup, not a run
    if (scan.operands.length > 0) env.engine.classify(scan.operands, stdin, env);
  },
  busybox: (args, stdin, env) => {
    if (args.length > 0) env.engine.classify(args, stdin, env);
  },
  xargs: (args, stdin, env, program) => {
    const scan = scanOptions(args, {
      short: 'adEILnPs',
      attached: 'eil',
      long: wordsOf(
        'arg-file delimiter eof replace max-lines max-args max-procs max-chars process-slot-var',
      ),
    });
    if (scan.unresolved) return unknownProgram(env, [unknownWord(program), ...args]);
    const inner = scan.operands.length > 0 ? scan.operands : [litWord('echo')];
    const items: Word[] = has(scan, '-a', '--arg-file')
      ? [unknownWord(`${program} -a`)]
      : stdin.kind === 'text'
        ? stdin.text
            .split(/\s+/)
            .filter(Boolean)
            .map((s) => litWord(s.replace(/^['"]|['"]$/g, '')))
        : stdin.kind === 'unknown'
          ? [unknownWord(`${stdin.source} | ${program}`)]
          : [];
    const replace = [...values(scan, '-I', '--replace'), ...values(scan, '-i')];
    const marker =
      replace.length > 0 ? (literal(replace[0]!) ?? '{}') : has(scan, '-i') ? '{}' : null;
    if (marker === null) return env.engine.classify([...inner, ...items], NO_INPUT, env);
    for (const item of items.length > 0 ? items : [unknownWord(`${program} input`)]) {
      const itemText = wordText(item);
      env.engine.classify(
        inner.map((w) => {
          const t = wordText(w);
          return t.includes(marker) ? wordFrom(t.split(marker).join(itemText), w) : w;
        }),
        NO_INPUT,
        env,
      );
    }
  },
  find: (args, stdin, env) => {
    for (let i = 0; i < args.length; i += 1) {
      const flag = literal(args[i]!);
      if (flag !== '-exec' && flag !== '-execdir' && flag !== '-ok' && flag !== '-okdir') continue;
      const inner: Word[] = [];
      let j = i + 1;
      for (; j < args.length; j += 1) {
        const w = literal(args[j]!);
        if (w === ';' || w === '+') break;
        inner.push(
          w !== null && w.includes('{}')
            ? wordFrom(w.replaceAll('{}', UNKNOWN_MARK), args[j]!)
            : args[j]!,
        );
      }
      env.engine.classify(inner, stdin, env);
      i = j;
    }
  },
  watch: (args, stdin, env, program) => {
    const scan = scanOptions(args, {
      short: 'nq',
      attached: 'd',
      long: ['interval', 'equexit', 'differences'],
    });
    if (scan.unresolved) return unknownProgram(env, [unknownWord(program), ...args]);
    if (has(scan, '-x', '--exec')) return env.engine.classify(scan.operands, stdin, env);
    if (scan.operands.length > 0)
      env.engine.script(joinWords(scan.operands), stdin, `\`${program}\` runs it`, env);
  },
  // `trap 'cmd' EXIT`: the command runs when the signal comes (or the script ends).
  trap: (args, stdin, env, program) => {
    const operands = args[0] && literal(args[0]) === '--' ? args.slice(1) : args;
    const first = operands[0] && literal(operands[0]);
    if (operands.length < 2 || first === '-' || (first ?? '').startsWith('-')) return;
    env.engine.script(wordText(operands[0]!), stdin, `\`${program}\` runs it`, env);
  },
  eval: (args, stdin, env, program) => {
    if (args.length > 0) env.engine.script(joinWords(args), stdin, `\`${program}\` runs it`, env);
  },
  at: (args, stdin, env, program) => {
    const scan = scanOptions(args, { short: 'fqmMt' });
    if (has(scan, '-l', '-d', '-r', '-c')) return; // list, delete, show
    if (has(scan, '-f'))
      return shellFromStdin(
        env,
        { kind: 'unknown', source: `${program} -f` },
        `\`${program}\` runs a file`,
      );
    shellFromStdin(env, stdin, `\`${program}\` runs commands from its input`);
  },
  script: (args, stdin, env, program) => {
    const scan = scanOptions(args, {
      short: 'cEIOBTm',
      long: wordsOf('command echo log-in log-out log-io log-timing logging-format'),
      permute: true,
    });
    for (const c of values(scan, '-c', '--command'))
      env.engine.script(wordText(c), stdin, `\`${program} -c\` runs it`, env);
  },
};
WRAPPERS['systemd-run'] = WRAPPERS.systemd_run!;
WRAPPERS.batch = WRAPPERS.at!;
WRAPPERS.toybox = WRAPPERS.busybox!;
WRAPPERS.runuser = su;
WRAPPERS.su = su;
WRAPPERS.ssh = ssh;

/** A word rebuilt from text that may hold UNKNOWN_MARK, keeping its glob flag. */
function wordFrom(text: string, like: Word): Word {
  const glob = like.some((s) => s.t === 'lit' && s.glob);
  if (!text.includes(UNKNOWN_MARK)) return [{ t: 'lit', s: text, glob }];
  return text
    .split(UNKNOWN_MARK)
    .flatMap((part, i): Word => [
      ...(i > 0 ? [{ t: 'unknown' as const, source: '{}', split: false }] : []),
      ...(part ? [{ t: 'lit' as const, s: part, glob }] : []),
    ]);
}

/** A shell reading commands from its standard input. */
export function shellFromStdin(env: Env, stdin: Input, why: string): void {
  if (stdin.kind === 'none') return;
  if (stdin.kind === 'text') return env.engine.script(stdin.text, NO_INPUT, why, env);
  everything(env, BOTH, `${why} from \`${stdin.source}\`, which the guard cannot read`);
}

function su(args: Word[], stdin: Input, env: Env, program: string): void {
  const scan = scanOptions(args, {
    short: 'cgGsuwC',
    long: wordsOf('command session-command group supp-group shell user whitelist-environment'),
    permute: true,
  });
  if (scan.unresolved) return unknownProgram(env, [unknownWord(program), ...args]);
  const commands = values(scan, '-c', '--command', '--session-command');
  if (commands.length > 0) {
    for (const c of commands)
      env.engine.script(wordText(c), stdin, `\`${program} -c\` runs it`, env);
    return;
  }
  // `runuser -u user -- cmd args` runs a command; `su [-] [user]` starts a shell.
  if (program === 'runuser' && has(scan, '-u', '--user') && scan.operands.length > 0)
    return env.engine.classify(scan.operands, stdin, env);
  shellFromStdin(env, stdin, `\`${program}\` starts a shell`);
}

const SSH: OptionSpec = { short: 'BbcDEeFIiJLlmOoPpQRSWw' };

function ssh(args: Word[], stdin: Input, env: Env, program: string): void {
  // OpenSSH reads options before and after the destination.
  const before = scanOptions(args, SSH);
  if (before.unresolved) return unknownProgram(env, [unknownWord(program), ...args]);
  const [host, ...afterHost] = before.operands;
  if (!host) return;
  if (has(before, '-N', '-O')) return;
  const after = scanOptions(afterHost, SSH);
  if (after.unresolved) return unknownProgram(env, [unknownWord(program), ...args]);
  if (has(after, '-N', '-O')) return;
  const remote = after.operands;
  const where = `\`${program} ${wordSource(host)}\``;
  if (remote.length === 0) return shellFromStdin(env, stdin, `${where} starts a remote shell`);
  env.engine.script(joinWords(remote), stdin, `${where} runs it`, env);
}

// ---------------------------------------------------------------------------------------------
// Shells and interpreters

const SHELL: OptionSpec = { short: 'oO', long: ['rcfile', 'init-file'] };

export const shell: Handler = (args, stdin, env, program) => {
  // +o/+O take an argument as -o/-O do; `-` ends the options like `--`.
  const words = args.map((w) => {
    const s = literal(w);
    return s === '-' ? litWord('--') : s !== null && /^\+[oO]$/.test(s) ? litWord(`-${s[1]}`) : w;
  });
  const scan = scanOptions(words, SHELL);
  if (scan.unresolved) return unknownProgram(env, [unknownWord(program), ...args]);
  if (has(scan, '-c')) {
    const [code] = scan.operands;
    if (code) env.engine.script(wordText(code), stdin, `\`${program} -c\` runs it`, env);
    return;
  }
  const [file, ...rest] = scan.operands;
  if (!file || has(scan, '-s')) return shellFromStdin(env, stdin, `\`${program}\` reads commands`);
  runFile(env, file, rest, stdin, program, (text, input) =>
    env.engine.script(text, input, `\`${program} ${wordSource(file)}\` runs it`, env),
  );
};

export const source: Handler = (args, stdin, env, program) => {
  const [file, ...rest] = args;
  if (!file) return;
  runFile(env, file, rest, stdin, program, (text, input) =>
    env.engine.script(text, input, `\`${program} ${wordSource(file)}\` runs it`, env),
  );
};

const STDIN_FILES = new Set(['/dev/stdin', '/dev/fd/0', '/proc/self/fd/0', '-']);

/**
 * A script file run by a shell or an interpreter: /dev/stdin is its input; a file the command
 * itself wrote is read back; anything else is on disk, out of the guard's sight, and only its
 * name and arguments can be checked.
 */
export function runFile(
  env: Env,
  file: Word,
  args: readonly Word[],
  stdin: Input,
  program: string,
  run: (text: string, stdin: Input) => void,
  /** Told whence code came that the guard cannot read (interpreters refuse it). */
  unreadable?: (whence: string) => void,
): void {
  const path = literal(file);
  const what = `\`${program} ${wordSource(file)}\``;
  if (path !== null && STDIN_FILES.has(path)) {
    if (stdin.kind === 'text') return run(stdin.text, NO_INPUT);
    if (stdin.kind === 'unknown') {
      unreadable?.(`\`${stdin.source}\``);
      everything(env, BOTH, `${what} runs \`${stdin.source}\`, which the guard cannot read`);
    }
    return;
  }
  const written = path === null ? undefined : env.engine.file(path);
  if (written !== undefined) {
    for (const text of written) {
      if (text === null) {
        unreadable?.('a file the command itself wrote');
        everything(
          env,
          BOTH,
          `${what} runs a file this command wrote with content the guard cannot read`,
        );
      } else run(text, stdin);
    }
    return;
  }
  unresolved(env, [file, ...args], `${what} runs a script the guard cannot read`);
}
