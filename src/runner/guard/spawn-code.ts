/**
 * Whether interpreter code can start (or signal) a process: the primitives each language has for
 * it, and the ways it has to reach them without naming them (string eval, reflection, dynamic
 * imports). The guard cannot follow a command such code assembles at run time
 * (`system("docker "."res"."tart x")`), so it refuses the code unless the operator allows the
 * interpreter. Words inside string literals count too: code can look a function up by its name.
 * Code is checked up to 64 KiB (longer is refused), which bounds the patterns' scans. Pure.
 */
import { GUARD_INTERPRETERS } from '../../config/guard-names.js';

/** Inline code longer than this is refused unread (no one-liner is this long). */
const MAX_CODE = 64 * 1024;

const PYTHON = [
  /\b(?:os|posix|nt)\s*\.\s*(?:system|popen\w*|exec\w*|spawn\w*|posix_spawnp?|fork\w*|kill\w*|startfile)\b/,
  /\b(?:subprocess|pty|commands|popen2|ctypes|cffi|importlib|pickle|cPickle|_pickle|marshal|shelve|dill|runpy|timeit|cProfile|pdb|webbrowser|multiprocessing)\b/,
  /\b(?:system|popen\d?|Popen|exec[lv]p?e?|spawn[lv]p?e?|posix_spawnp?|forkpty|fork|getoutput|getstatusoutput|check_output|check_call|create_subprocess_exec|create_subprocess_shell)\s*\(/,
  /(?<![.\w])(?:exec|eval|compile|__import__|getattr|globals|vars|locals|breakpoint)\s*\(/,
  /\bbuiltins\b/,
  /__(?:builtins|import|dict|globals|subclasses|class|bases|mro|getattribute|loader|code)__/,
  /\bsys\s*\.\s*modules\b/,
  /\bfrom\s+(?:os|posix|nt)\s+import\b[^\n;]*(?:\*|system|popen|exec|spawn|fork|kill)/,
];

const PERL = [
  /\b(?:system|exec|readpipe|fork|kill|syscall|qx)\b/,
  /`/,
  /\b(?:IPC|IO::Pipe|Proc|Expect|Shell)\b/,
  /\beval\b(?!\s*\{)/,
  // A pipe open (`"|cmd"`, `"-|"`), or a mode or name the guard cannot read (`open(F, $x)`).
  /\bopen\b[^;\n]*\|/,
  /\bopen\s*\(?\s*(?:my\s+)?[$\w:]+\s*,\s*(?:[^'"\s]|"\s*\$)/,
  /\b(?:do|require)\s*[$"'(]/,
];

const RUBY = [
  /\b(?:system|exec|spawn|fork|syscall|kill|popen\w*|capture[23]\w*|pipeline\w*|daemon)\b/,
  /`|%x/,
  /\b(?:Open3|PTY)\b/,
  /\bIO\s*\.\s*(?:read|readlines|write|foreach|binread|binwrite)\b/,
  /\b(?:eval|instance_eval|class_eval|module_eval|instance_exec|class_exec|send|__send__|public_send|define_method|const_get|binding)\b|(?<![.\w])load\b/,
  /\brequire(?:_relative)?\s*\(?\s*(?:['"](?:open3|pty|shell|expect|childprocess|posix[-/]spawn|fiddle|ffi)\b|[^'"\s(])/,
  // Kernel#open runs a command for a name starting with `|`.
  /(?<![.\w])open\s*\(?\s*(?!['"][^|'"])/,
];

const NODE = [
  /\bchild_process\b/,
  /(?<![.\w])(?:execSync|execFileSync|spawnSync|execFile|spawn|fork|exec)\s*\(/,
  /\bprocess\s*\.\s*(?:binding|_linkedBinding|dlopen|kill|mainModule)\b/,
  /\b(?:eval|Function|import)\s*\(/,
  /\brequire\s*\(\s*(?!['"`][\w@./:-]*['"`]\s*\))/,
  /['"`](?:node:)?(?:vm|worker_threads|inspector|module|repl|cluster)['"`]/,
  /\b(?:constructor|Reflect)\b|\b(?:globalThis|global)\s*\[/,
  /\bBun\s*\.\s*(?:spawn|spawnSync|\$)|\$`/,
  /\bDeno\s*\.\s*(?:run|Command|kill)\b/,
];

const PHP = [
  /\b(?:system|exec|shell_exec|passthru|popen|proc_open|pcntl_exec|pcntl_fork|posix_kill|expect_popen|mail|mb_send_mail|putenv|dl)\b/i,
  /`/,
  /\b(?:eval|assert|create_function|call_user_func(?:_array)?|forward_static_call(?:_array)?|register_shutdown_function|register_tick_function|ReflectionFunction|ReflectionMethod|FFI|include|include_once|require|require_once)\b/i,
  // Variable functions: `$f("...")`, `("sys"."tem")("...")`.
  /\$\w+\s*\(|\)\s*\(/,
];

const AWK = [/\bsystem\s*\(/, /\|\s*getline/, /\|&/, /\bprintf?\b[^;}\n]*\|/, /@load\b/];

const SED = [/(^|[;\n{}])\s*[\d$,/!]*\s*e(\s|;|$)/, /s(.).*\1.*\1[gpiImM\d]*e/];

const LUA = [
  /\bos\s*\.\s*execute\b|\bio\s*\.\s*popen\b|\bpackage\s*\.\s*loadlib\b/,
  /\b(?:load|loadstring|dofile|loadfile|require)\b/,
];

const TCL = [/\b(?:exec|eval|uplevel|subst|source|load|interp)\b/, /\bopen\s*["{]?\s*\|/];

const R = [
  /\b(?:system2?|shell|pipe|eval|parse|do\.call|source|dyn\.load|get|match\.fun)\s*\(|\bprocessx\b/,
];

const OSASCRIPT = [/\bdo\s+shell\s+script\b|\brun\s+script\b|\bdoShellScript\b|\bNSTask\b|\$\./];

const PRIMITIVES: Record<string, RegExp[] | 'always'> = {
  python: PYTHON,
  perl: PERL,
  ruby: RUBY,
  node: NODE,
  bun: NODE,
  deno: NODE,
  php: PHP,
  awk: AWK,
  sed: SED,
  lua: LUA,
  tclsh: TCL,
  Rscript: R,
  // PowerShell runs any program by its bare name.
  pwsh: 'always',
  osascript: OSASCRIPT,
};

const FAMILY: Record<string, string> = {
  pypy: 'python',
  perl5: 'perl',
  nodejs: 'node',
  gawk: 'awk',
  mawk: 'awk',
  nawk: 'awk',
  busybox: 'awk',
  gsed: 'sed',
  luajit: 'lua',
  powershell: 'pwsh',
};

/** The name an operator allows an interpreter by: `python3.11` -> python, `gawk` -> awk. */
export function interpreterFamily(program: string): string {
  const bare = program.replace(/[\d.]+$/, '');
  const name = FAMILY[bare] ?? bare;
  return GUARD_INTERPRETERS.includes(name) ? name : program;
}

/**
 * awk runs a command given as one string literal (`print $1 | "sort"`, `"date" | getline d`);
 * a program that only filters text it reads is let through. Any other (a shell reading awk's
 * output or input, a command built at run time) is out of the guard's sight.
 */
// `sort --compress-program=CMD` runs a program; no other option of these does.
const FILTER =
  '(?:sort|uniq|head|tail|wc|cut|tr|column|grep|egrep|fgrep|cat|date|hostname)' +
  '(?: (?![^"]*compress)[^"\\\\$;&|`<>()\\n]*)?';
const AWK_FILTERS = [
  new RegExp(`\\bsystem\\s*\\(\\s*"${FILTER}"\\s*\\)`, 'g'),
  new RegExp(`"${FILTER}"\\s*\\|\\s*getline`, 'g'),
  new RegExp(`\\|\\s*"${FILTER}"\\s*(?=[;}\\n)]|$)`, 'g'),
];

/**
 * The first process-starting construct in `code`, as written (null: none found). `filters`:
 * awk's pipes to plain text filters do not count.
 */
export function spawnPrimitive(family: string, code: string, filters = true): string | null {
  // Some patterns scan to the end of a statement from each candidate: bounded by this.
  if (code.length > MAX_CODE && PRIMITIVES[family] !== undefined) return 'code too large to check';
  if (family === 'awk' && filters)
    code = AWK_FILTERS.reduce((text, filter) => text.replace(filter, ' '), code);
  const rules = PRIMITIVES[family];
  if (rules === undefined) return null;
  if (rules === 'always') return code.trim() === '' ? null : 'any command';
  for (const rule of rules) {
    const m = rule.exec(code);
    if (m) return m[0] === '`' ? 'backticks' : m[0].trim().replace(/\s+/g, ' ').slice(0, 40);
  }
  return null;
}
