/**
 * MCP tools that restart or redeploy (`mcp__docker__restart_container {"container":
 * "jellyfin"}`, `mcp__homelab__service {"action": "restart", "name": "jellyfin"}`): the verb is
 * read from the tool's name or from an input value, the services from the input's name-like
 * fields. A tool that restarts and names no service counts against every service (fail closed,
 * as for Bash), and any service its input mentions counts too. Shell commands in an input
 * (`command`, `cmd`, `script`) are handed back for the Bash guard. Pure.
 */
import type { CooldownAction } from '../../stream/index.js';
import { type RemediationIntent, targetName } from './intent.js';
import { clip } from './walk.js';

/** The memory tools' own server: never remediation. */
const OWN_SERVER = 'watchkeeper';

const RESTART = new Set(
  `restart restarts restarted restarting reboot reboots rebooted rebooting stop stops stopped
  stopping start starts started starting kill kills killed shutdown poweroff halt bounce bounced
  recycle recycled powercycle cycle terminate terminated respawn`.split(/\s+/),
);
const REDEPLOY = new Set(
  `redeploy redeploys redeployed redeploying deploy deploys deployed deploying rollout rollouts
  rollback rollbacks upgrade upgrades upgraded upgrading recreate recreated recreating reinstall
  reinstalled`.split(/\s+/),
);
/** A tool named for reading (`get_restart_count`, `list_deployments`) changes nothing. */
const READ_FIRST = new Set(
  `get list describe show inspect read search query count fetch find view watch status logs log
  history stats metrics`.split(/\s+/),
);
const TARGET_KEY =
  /^(service|services|service_?name|container|containers|container_?name|name|names|unit|units|unit_?name|app|apps|application|stack|stack_?name|deployment|deployments|release|target|targets|resource|id|ids|pod|statefulset|daemonset)$/i;
const COMMAND_KEY = /^(command|commands|cmd|script|shell|exec|run)$/i;

const MAX_DEPTH = 5;
const MAX_STRINGS = 500;

export interface McpCall {
  name: string;
  server: string;
  tool: string;
}

/** `mcp__<server>__<tool>`, or null for any other tool name. */
export function mcpCall(toolName: string): McpCall | null {
  const m = /^mcp__(.+?)__(.+)$/.exec(toolName);
  return m ? { name: toolName, server: m[1]!, tool: m[2]! } : null;
}

/** Words of an identifier: `restartContainer`, `restart_container`, `stack-redeploy`. */
export function identifierWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

function actionOf(word: string): CooldownAction | null {
  if (RESTART.has(word)) return 'restart';
  if (REDEPLOY.has(word)) return 'redeployment';
  return null;
}

interface Scan {
  actions: Set<CooldownAction>;
  targets: string[];
  commands: string[];
  strings: string[];
}

function scan(value: unknown, key: string, out: Scan, depth: number): void {
  if (depth > MAX_DEPTH || out.strings.length >= MAX_STRINGS) return;
  if (typeof value === 'string') {
    out.strings.push(value);
    const word = value.trim().toLowerCase();
    const action = actionOf(word);
    if (action) out.actions.add(action);
    if (TARGET_KEY.test(key) && word !== '' && !/\s/.test(word)) out.targets.push(targetName(word));
    if (COMMAND_KEY.test(key)) out.commands.push(value);
    return;
  }
  if (value === true) {
    // `{"restart": true}`, `{"force_recreate": true}`
    for (const w of identifierWords(key)) {
      const action = actionOf(w);
      if (action) out.actions.add(action);
    }
    return;
  }
  if (Array.isArray(value)) {
    // An argv (`{"command": ["docker", "restart", "jellyfin"]}`) is a command too.
    if (COMMAND_KEY.test(key) && value.every((v) => typeof v === 'string')) {
      out.commands.push(value.map((v) => `'${v.replace(/'/g, `'\\''`)}'`).join(' '));
      out.strings.push(...value);
      return;
    }
    for (const v of value) scan(v, key, out, depth + 1);
    return;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) scan(v, k, out, depth + 1);
  }
}

export interface McpFindings {
  /** The call as text, for refusals and the record: `mcp__x__restart {"name":"jellyfin"}`. */
  command: string;
  intents: RemediationIntent[];
  /** Shell commands found in the input, for the Bash guard. */
  commands: string[];
}

/** What a call of an MCP tool could restart or redeploy; null for tools that are not MCP's. */
export function mcpToolIntents(toolName: string, input: unknown): McpFindings | null {
  const call = mcpCall(toolName);
  if (!call) return null;
  const command = clip(`${toolName} ${JSON.stringify(input ?? {})}`);
  if (call.server === OWN_SERVER) return { command, intents: [], commands: [] };
  const out: Scan = { actions: new Set(), targets: [], commands: [], strings: [] };
  const words = identifierWords(call.tool);
  scan(input, '', out, 0);
  // A tool named for reading acts on nothing, whatever its input says (`"since": "start"`).
  if (READ_FIRST.has(words[0] ?? '')) out.actions.clear();
  else {
    for (const w of words) {
      const action = actionOf(w);
      if (action) out.actions.add(action);
    }
  }
  const targets = [...new Set(out.targets.filter(Boolean))];
  const intents = [...out.actions].map((action): RemediationIntent => ({
    action,
    targets,
    patterns: [],
    mentions: out.strings.length > 0 ? [out.strings.join(' ')] : [],
    untargeted: targets.length === 0,
    command,
    why:
      targets.length > 0
        ? `the MCP tool \`${toolName}\` would ${action === 'restart' ? 'restart or stop' : 'redeploy'} ${targets.join(', ')}`
        : `the MCP tool \`${toolName}\` would ${action === 'restart' ? 'restart or stop' : 'redeploy'} services and names none, so it counts against every service`,
  }));
  return { command, intents, commands: out.commands };
}
