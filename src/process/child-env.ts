/**
 * The environment of every Claude CLI watchkeeper starts (a session, a model gateway job): an
 * allow-list. Dashboard secrets and anything not named here never reach the child.
 */
const ALWAYS_PASSED = ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'TZ', 'TMPDIR', 'SHELL'];
const PASSED_PREFIXES = ['ANTHROPIC_', 'LC_'];
const PASSED_CLAUDE = [
  'CLAUDE_CODE_OAUTH_TOKEN',
  'CLAUDE_CONFIG_DIR',
  'CLAUDE_CODE_USE_BEDROCK',
  'CLAUDE_CODE_USE_VERTEX',
];

export interface ChildEnvInput {
  parent: Record<string, string | undefined>;
  /** Names the operator listed in WATCHKEEPER_CHILD_ENV. */
  extra: readonly string[];
  /** Set on top (the hook's WATCHKEEPER_* settings, demo overrides). */
  set: Record<string, string>;
}

/** The child's environment: ANTHROPIC_*, PATH, HOME, locale, the operator's names, and `set`. */
export function childEnv(input: ChildEnvInput): Record<string, string> {
  const out: Record<string, string> = {};
  const allowed = new Set([...ALWAYS_PASSED, ...PASSED_CLAUDE, ...input.extra]);
  for (const [name, value] of Object.entries(input.parent)) {
    if (value === undefined) continue;
    if (allowed.has(name) || PASSED_PREFIXES.some((p) => name.startsWith(p))) out[name] = value;
  }
  // Claude Code marks its own children with CLAUDECODE=1; a child of ours is not one of them.
  delete out.CLAUDECODE;
  out.DISABLE_AUTOUPDATER = '1';
  return { ...out, ...input.set };
}
