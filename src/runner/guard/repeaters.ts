/**
 * Commands that run a command once per item or over and over: `xargs` (its items read from its
 * input when the guard can), `find -exec`/`-execdir`/`-ok`, `watch`. The items are unknown
 * words, so a `{}` in the command counts as a word that could name any service. Pure.
 */
import { type Handler, NO_INPUT, unknownProgram } from './env.js';
import { has, scanOptions, values, wordsOf } from './options.js';
import { wordFrom } from './wrapper-kit.js';
import {
  joinWords,
  literal,
  litWord,
  UNKNOWN_MARK,
  unknownWord,
  type Word,
  wordText,
} from './words.js';

export const REPEATERS: Record<string, Handler> = {
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
};
