/**
 * Interpreters (`python3 -c`, `perl -e`, `node -e`, awk, sed): their code is checked as text
 * for the restarts it names, and refused outright when it can start a process, since the guard
 * cannot follow a command the code assembles at run time. Code the guard cannot see at all
 * (piped in from `curl`, held in a variable, downloaded by the command itself) is refused too.
 * A script already on disk (`python3 /opt/check.py`) is judged by its name and arguments only,
 * as a shell script on disk is: refusing it would refuse the operator's own tools. Pure.
 */
import {
  BOTH,
  type Env,
  everything,
  type Handler,
  type Input,
  NO_INPUT,
  opaque,
  unknownProgram,
  unresolved,
} from './env.js';
import { has, type OptionSpec, scanOptions, values, wordsOf } from './options.js';
import { interpreterFamily, spawnPrimitive } from './spawn-code.js';
import { literal, litWord, UNKNOWN_MARK, unknownWord, type Word, wordText } from './words.js';
import { runFile } from './shells.js';

interface Interpreter {
  /** Options whose argument is code (as scanOptions names them: `-c`, `--eval`). */
  code: string[];
  /** Every option that takes an argument, code options included. */
  spec: OptionSpec;
  /** Code follows an `eval` subcommand (`deno eval CODE`). */
  evalSubcommand?: boolean;
  /** Options that load a module before the code runs (`perl -MIPC::Open3`, `ruby -ropen3`). */
  modules?: string[];
}

const INTERPRETERS: Record<string, Interpreter> = {
  python: { code: ['-c'], spec: { short: 'cWXm' } },
  pypy: { code: ['-c'], spec: { short: 'cWXm' } },
  perl: { code: ['-e', '-E'], spec: { short: 'eEIMmx', attached: 'il0' }, modules: ['-M', '-m'] },
  ruby: { code: ['-e'], spec: { short: 'erIC', attached: 'x0KTWE' }, modules: ['-r'] },
  node: {
    code: ['-e', '-p', '--eval', '--print'],
    spec: {
      short: 'eprC',
      long: wordsOf('eval print require import input-type conditions loader'),
    },
    modules: ['-r', '--require', '--import', '--loader'],
  },
  bun: { code: ['-e', '--eval', '-p', '--print'], spec: { short: 'epr', long: ['eval', 'print'] } },
  deno: { code: [], spec: {}, evalSubcommand: true },
  php: { code: ['-r', '-R', '-B', '-E'], spec: { short: 'rRBEFcdz' } },
  lua: { code: ['-e'], spec: { short: 'el' }, modules: ['-l'] },
  luajit: { code: ['-e'], spec: { short: 'elbjO' }, modules: ['-l'] },
  tclsh: { code: [], spec: {} },
  Rscript: { code: ['-e'], spec: { short: 'e' } },
  pwsh: {
    code: ['-c', '--command', '--Command'],
    spec: { short: 'cfF', singleDashLong: true, long: ['command', 'Command', 'File', 'file'] },
  },
  osascript: { code: ['-e'], spec: { short: 'els' } },
};
INTERPRETERS.nodejs = INTERPRETERS.node!;
INTERPRETERS.perl5 = INTERPRETERS.perl!;
INTERPRETERS.powershell = INTERPRETERS.pwsh!;

export function interpreterFor(program: string): Handler | undefined {
  const spec = INTERPRETERS[program] ?? INTERPRETERS[program.replace(/[\d.]+$/, '')];
  if (!spec) return undefined;
  return (args, stdin, env, name) => interpret(spec, args, stdin, env, name);
}

/** Refuses code that can start a process, or code the guard cannot read (`source` says whence). */
function refuseSpawning(env: Env, program: string, code: string, source?: string): void {
  const name = interpreterFamily(program);
  if (source !== undefined || code.includes(UNKNOWN_MARK)) {
    const from = source ?? 'words the guard cannot resolve';
    return env.refuse({
      kind: 'interpreter',
      name,
      why: `\`${program}\` runs code from ${from}, which the guard cannot read, and interpreter code can start any process`,
    });
  }
  const primitive = spawnPrimitive(name, code);
  if (primitive !== null)
    env.refuse({
      kind: 'interpreter',
      name,
      why: `\`${program}\` code can start a process (\`${primitive}\`), and the guard cannot follow what it runs`,
    });
}

function interpret(spec: Interpreter, args: Word[], stdin: Input, env: Env, program: string): void {
  if (spec.evalSubcommand && literal(args[0] ?? []) === 'eval')
    return runCode(env, args.slice(1), [], program);
  const scan = scanOptions(args, spec.spec);
  if (scan.unresolved) return unknownProgram(env, [unknownWord(program), ...args]);
  const perl = interpreterFamily(program) === 'perl';
  const modules = values(scan, ...(spec.modules ?? []))
    .map((m) => (perl ? `use ${wordText(m)};\n` : `require('${wordText(m)}');\n`))
    .join('');
  const code = values(scan, ...spec.code);
  if (code.length > 0) return runCode(env, code, scan.operands, program, modules);
  const [file, ...rest] = scan.operands;
  if (has(scan, '-m'))
    return unresolved(
      env,
      [...values(scan, '-m'), ...scan.operands],
      `\`${program} -m\` runs a module`,
    );
  if (!file) {
    if (stdin.kind === 'none') return;
    if (stdin.kind === 'unknown') {
      refuseSpawning(env, program, '', `\`${stdin.source}\``);
      return everything(
        env,
        BOTH,
        `\`${program}\` runs code from \`${stdin.source}\`, which the guard cannot read`,
      );
    }
    return runCode(env, [litWord(stdin.text)], rest, program, modules);
  }
  runFile(
    env,
    file,
    rest,
    stdin,
    program,
    (text) => runCode(env, [litWord(text)], rest, program, modules),
    (whence) => refuseSpawning(env, program, '', whence),
  );
}

/**
 * Interpreter code: refused when it can start a process; every string literal in it is checked
 * as a shell command (catches `os.system("docker restart x")`), and the whole text as opaque
 * text (catches `subprocess.run(["docker", "restart", "x"])` and SDK calls naming the service).
 */
function runCode(
  env: Env,
  code: Word[],
  args: Word[],
  program: string,
  modules = '',
  refuse = true,
): void {
  if (refuse) refuseSpawning(env, program, modules + code.map(wordText).join('\n'));
  const text = [...code.map(wordText), ...args.map(wordText)].join('\n');
  const why = `\`${program}\` code calls it`;
  for (const literalText of stringLiterals(text))
    if (/\s/.test(literalText)) env.engine.script(literalText, NO_INPUT, why, env);
  opaque(env, text, `\`${program}\` code names it with a restart-like word`);
}

/** String literals of code in most languages: '...', "..." and `...`, escapes kept simple. */
function stringLiterals(code: string): string[] {
  const out: string[] = [];
  const re = /'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`/g;
  for (const m of code.matchAll(re)) {
    const body = (m[1] ?? m[2] ?? m[3] ?? '').replace(/\\(["'\\`])/g, '$1');
    if (body.length > 0 && out.length < 200) out.push(body);
  }
  return out;
}

/** awk runs commands only through system(), pipes and getline; sed only through `e`. */
export const awk: Handler = (args, _stdin, env, program) => {
  const scan = scanOptions(args, { short: 'fvF', long: ['file', 'assign', 'field-separator'] });
  if (has(scan, '-f', '--file')) return;
  const [code, ...files] = scan.operands;
  if (!code) return;
  const text = wordText(code);
  if (spawnPrimitive('awk', text, false) !== null || text.includes(UNKNOWN_MARK))
    runCode(env, [code], files, program);
};

/** A variable part of a sed script (`s/$OLD/$NEW/`) is judged by the cooldowns alone. */
export const sed: Handler = (args, _stdin, env, program) => {
  const scan = scanOptions(args, { short: 'efl', long: ['expression', 'file', 'line-length'] });
  const scripts = values(scan, '-e', '--expression');
  const code = scripts.length > 0 ? scripts : scan.operands.slice(0, 1);
  const text = code.map(wordText).join('\n');
  const visible = spawnPrimitive('sed', text.split(UNKNOWN_MARK).join(' ')) !== null;
  if (visible || text.includes(UNKNOWN_MARK)) runCode(env, code, [], program, '', visible);
};
