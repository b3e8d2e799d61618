/**
 * Commands that run a command with a different priority, schedule, buffering, session or
 * tracer (`timeout -s KILL 5`, `nice -n 5`, `stdbuf -oL`, `setsid`, `nohup`, `strace -f`,
 * `systemd-run --unit x`): the command is classified as if run on its own. Pure.
 */
import { type Handler, unknownProgram } from './env.js';
import { has, scanOptions, wordsOf } from './options.js';
import { wrapper } from './wrapper-kit.js';
import { unknownWord } from './words.js';

export const PROCESS_WRAPPERS: Record<string, Handler> = {
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
};
PROCESS_WRAPPERS['systemd-run'] = PROCESS_WRAPPERS.systemd_run!;
