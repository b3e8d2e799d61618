/**
 * What the Claude CLI is given: its arguments (the hook registered through a `--settings` file),
 * and an allow-listed environment. Dashboard secrets and anything not named here never reach the child.
 */
import { fileURLToPath } from 'node:url';

import type { Config, TierConfig } from '../config.js';

export const WATCHKEEPER_BIN = fileURLToPath(new URL('../../bin/watchkeeper.js', import.meta.url));

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

/**
 * The settings that make the CLI ask `watchkeeper hook pre-tool-use` before every Bash call and,
 * with a registration, the session's own process after every tool call (relevant memories).
 */
export function hookSettings(
  base: Record<string, unknown>,
  nodePath: string,
  postToolUse: { url: string; token: string } | null = null,
): Record<string, unknown> {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const entry = {
    matcher: 'Bash',
    hooks: [
      {
        type: 'command',
        command: `${quote(nodePath)} ${quote(WATCHKEEPER_BIN)} hook pre-tool-use`,
        timeout: 30,
      },
    ],
  };
  const hooks = (typeof base.hooks === 'object' && base.hooks !== null ? base.hooks : {}) as Record<
    string,
    unknown
  >;
  const pre = Array.isArray(hooks.PreToolUse) ? hooks.PreToolUse : [];
  const post = Array.isArray(hooks.PostToolUse) ? hooks.PostToolUse : [];
  const surfacing = postToolUse
    ? [
        {
          matcher: '*',
          hooks: [
            {
              type: 'http',
              url: postToolUse.url,
              headers: { Authorization: `Bearer ${postToolUse.token}` },
              timeout: 5,
            },
          ],
        },
      ]
    : [];
  return {
    ...base,
    hooks: { ...hooks, PreToolUse: [...pre, entry], PostToolUse: [...post, ...surfacing] },
  };
}

export interface CliArgsInput {
  tier: TierConfig;
  runner: Config['runner'];
  /** The appended system prompt and the settings (with the hook), written to files. */
  systemPromptFile: string;
  settingsFile: string;
}

/**
 * The CLI's arguments: small values only. The prompt goes in on stdin and the large inputs in
 * files, so no argument can hit exec's limits (128 KiB each, no NUL).
 */
export function cliArgs(i: CliArgsInput): string[] {
  const args = [
    '-p',
    '--output-format',
    'stream-json',
    '--verbose',
    '--model',
    i.tier.model,
    '--permission-mode',
    i.runner.permissionMode,
    '--settings',
    i.settingsFile,
    '--append-system-prompt-file',
    i.systemPromptFile,
  ];
  if (i.runner.maxTurns !== null) args.push('--max-turns', String(i.runner.maxTurns));
  if (i.tier.allowedTools) args.push('--allowedTools', i.tier.allowedTools);
  if (i.tier.disallowedTools) args.push('--disallowedTools', i.tier.disallowedTools);
  if (i.runner.mcpConfig) args.push('--mcp-config', i.runner.mcpConfig);
  return args;
}
