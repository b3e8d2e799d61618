/**
 * Commands that run a command held in a string, now or later: `eval`, `trap 'cmd' EXIT`,
 * `at`/`batch` (commands on their input), `script -c`. Pure.
 */
import { type Handler } from './env.js';
import { has, scanOptions, values, wordsOf } from './options.js';
import { shellFromStdin } from './shells.js';
import { joinWords, literal, wordText } from './words.js';

export const DEFERRED: Record<string, Handler> = {
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
DEFERRED.batch = DEFERRED.at!;
