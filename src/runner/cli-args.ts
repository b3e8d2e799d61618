/**
 * What the Claude CLI of a session is given: its arguments (the hook registered through a
 * `--settings` file). Its allow-listed environment is built by src/process/child-env.ts, which the
 * model gateway's CLI backend shares.
 */
import { fileURLToPath } from 'node:url';

import type { Config, TierConfig } from '../config/index.js';

export const WATCHKEEPER_BIN = fileURLToPath(new URL('../../bin/watchkeeper.js', import.meta.url));

/**
 * The settings that make the CLI ask `watchkeeper hook pre-tool-use` before every Bash call,
 * every call of another server's MCP tool and (`fileTools`) every file read or edit and,
 * with a registration, the session's own process after every tool call (relevant memories).
 */
export function hookSettings(
  base: Record<string, unknown>,
  nodePath: string,
  postToolUse: { url: string; token: string } | null = null,
  fileTools = false,
): Record<string, unknown> {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const guard = [
    {
      type: 'command',
      command: `${quote(nodePath)} ${quote(WATCHKEEPER_BIN)} hook pre-tool-use`,
      timeout: 30,
    },
  ];
  // A matcher with other characters than letters, digits, _ and | is a regular expression: every
  // MCP tool but the memory tools (which restart nothing).
  const entries = [
    { matcher: 'Bash', hooks: guard },
    { matcher: `^mcp__(?!${MEMORY_SERVER}__)`, hooks: guard },
    // With repositories, their rules hold for files too (read-only, a playbook's tier).
    ...(fileTools ? [{ matcher: 'Read|Edit|MultiEdit|Write|NotebookEdit', hooks: guard }] : []),
  ];
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
    hooks: { ...hooks, PreToolUse: [...pre, ...entries], PostToolUse: [...post, ...surfacing] },
  };
}

/** The MCP server every session gets (`watchkeeper mcp`), and its tools as the CLI names them. */
export const MEMORY_SERVER = 'watchkeeper';
export const MEMORY_TOOLS = ['memory_add', 'memory_query', 'memory_verify', 'memory_reinforce'].map(
  (tool) => `mcp__${MEMORY_SERVER}__${tool}`,
);

/**
 * The `--mcp-config` document of the memory tools' server: this installation's
 * `watchkeeper mcp` on the session's data folder, told the session and tier it writes for, and
 * the embeddings settings so that it matches by the same model as the runner. The file is the
 * session's own (0600, removed when the session ends); it holds the embeddings key when one is
 * configured, which the server needs and the CLI's environment never gets.
 */
export function memoryServerConfig(
  config: Pick<Config, 'dataDir' | 'embeddings' | 'logLevel'>,
  session: { sessionId: number; tier: number },
  nodePath: string,
): Record<string, unknown> {
  const e = config.embeddings;
  const env: Record<string, string> = {
    WATCHKEEPER_DATA_DIR: config.dataDir,
    WATCHKEEPER_SESSION_ID: String(session.sessionId),
    WATCHKEEPER_TIER: String(session.tier),
    WATCHKEEPER_EMBEDDINGS: e.backend,
    WATCHKEEPER_EMBEDDINGS_TIMEOUT: `${e.timeoutMs}ms`,
    WATCHKEEPER_LOG_LEVEL: config.logLevel === 'debug' ? 'debug' : 'warn',
    ...(e.url ? { WATCHKEEPER_EMBEDDINGS_URL: e.url } : {}),
    ...(e.model ? { WATCHKEEPER_EMBEDDINGS_MODEL: e.model } : {}),
    ...(e.key ? { WATCHKEEPER_EMBEDDINGS_KEY: e.key } : {}),
  };
  return {
    mcpServers: {
      [MEMORY_SERVER]: { type: 'stdio', command: nodePath, args: [WATCHKEEPER_BIN, 'mcp'], env },
    },
  };
}

/** Tools that write files: never on a dry run's list, whatever tier 1's list says. */
const WRITE_TOOLS = ['Write', 'Edit', 'MultiEdit', 'NotebookEdit'];

/**
 * A dry run's tools, at every tier: tier 1's (observe) lists, without the tools that write files
 * and with them denied. The cooldown guard refuses every restart and redeployment on top.
 */
export function dryRunTools(tier: TierConfig, observe: TierConfig): TierConfig {
  const items = (list: string) =>
    list
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
  const allowed = items(observe.allowedTools).filter((t) => !WRITE_TOOLS.includes(t));
  const denied = items(observe.disallowedTools);
  return {
    ...tier,
    allowedTools: allowed.join(','),
    disallowedTools: [...denied, ...WRITE_TOOLS.filter((t) => !denied.includes(t))].join(','),
  };
}

export interface CliArgsInput {
  tier: TierConfig;
  runner: Config['runner'];
  /** The appended system prompt and the settings (with the hook), written to files. */
  systemPromptFile: string;
  settingsFile: string;
  /** The memory tools' MCP config (memoryServerConfig), written to a file; none: no tools. */
  mcpConfigFile?: string | null;
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
  // The memory tools are on every tier's list (the operator's own list included); a
  // --disallowedTools rule still takes any of them away.
  const allowed = [
    ...(i.tier.allowedTools ? [i.tier.allowedTools] : []),
    ...(i.mcpConfigFile ? MEMORY_TOOLS : []),
  ].join(',');
  if (allowed) args.push('--allowedTools', allowed);
  if (i.tier.disallowedTools) args.push('--disallowedTools', i.tier.disallowedTools);
  // Both configs: the operator's servers load beside the memory tools, never replaced by them.
  const mcp = [i.mcpConfigFile, i.runner.mcpConfig].filter((f): f is string => Boolean(f));
  if (mcp.length > 0) args.push('--mcp-config', ...mcp);
  return args;
}
