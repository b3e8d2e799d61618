/**
 * Commands that run a command given as words or as a string: `env -u X cmd`, `env -S 'cmd'`,
 * `flock file -c 'cmd'`, `command cmd` (not `command -v`), `busybox cmd`. Pure.
 */
import { type Handler, unknownProgram } from './env.js';
import { has, scanOptions, values } from './options.js';
import { skipAssignments } from './wrapper-kit.js';
import { literal, unknownWord, wordText } from './words.js';

export const LAUNCHERS: Record<string, Handler> = {
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
};
LAUNCHERS.toybox = LAUNCHERS.busybox!;
