/**
 * The names the cooldown guard knows, in a file of their own: the guard (runner/guard) reads them
 * in every PreToolUse hook, which must not load the configuration's schemas to do so.
 */

/**
 * Interpreters whose process-starting code the cooldown guard refuses unless the operator allows
 * them by name (WATCHKEEPER_GUARD_ALLOW_INTERPRETERS); `python3`, `gawk`, `nodejs` go by these.
 */
export const GUARD_INTERPRETERS: readonly string[] = [
  'perl',
  'python',
  'ruby',
  'node',
  'php',
  'awk',
  'sed',
  'bun',
  'deno',
  'lua',
  'tclsh',
  'Rscript',
  'pwsh',
  'osascript',
];

/**
 * Programs and variables that run a command the cooldown guard cannot follow, from an option
 * or a variable (`git -c alias.x='!cmd'`, `tar --to-command`, `BASH_ENV`), refused unless the
 * operator allows them by name (WATCHKEEPER_GUARD_ALLOW_HOOKS); `vi`, `ex`, `nvim` go by `vim`.
 */
export const GUARD_HOOKS: readonly string[] = [
  'git',
  'tar',
  'ssh',
  'vim',
  'sort',
  'less',
  'fc',
  'BASH_ENV',
  'ENV',
];
