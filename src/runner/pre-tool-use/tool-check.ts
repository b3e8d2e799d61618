/**
 * What a tool call could restart or redeploy: a Bash command read by the command guard, or an
 * MCP tool whose input names a restart (and any commands it carries, read the same way).
 */
import { checkCommand, type CommandWatch, type Refusal } from '../command-guard.js';
import { mcpToolIntents } from '../guard/mcp-tools.js';
import type { RemediationIntent } from '../guard/intent.js';

/** The Bash command of a PreToolUse payload, or null for any other tool. */
export function bashCommand(payload: unknown): string | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const p = payload as { tool_name?: unknown; tool_input?: { command?: unknown } };
  if (p.tool_name !== 'Bash') return null;
  return typeof p.tool_input?.command === 'string' ? p.tool_input.command : null;
}

/** What a tool call could restart or redeploy, and what the guard refuses outright. */
export interface ToolCheck {
  /** The call as text: the command, or the MCP tool and its input. */
  command: string;
  intents: RemediationIntent[];
  refusals: Refusal[];
}

/**
 * What a tool call could do (see ToolCheck); null for a tool the guard does not check. A watch
 * is told of every command read on the way (the runbook rules).
 */
export async function toolIntents(
  payload: unknown,
  watch?: CommandWatch,
): Promise<ToolCheck | null> {
  const command = bashCommand(payload);
  if (command !== null) return { command, ...(await checkCommand(command, watch)) };
  if (typeof payload !== 'object' || payload === null) return null;
  const p = payload as { tool_name?: unknown; tool_input?: unknown };
  if (typeof p.tool_name !== 'string') return null;
  const found = mcpToolIntents(p.tool_name, p.tool_input);
  if (!found) return null;
  const nested = await Promise.all(found.commands.map((c) => checkCommand(c, watch)));
  return {
    command: found.command,
    intents: [...found.intents, ...nested.flatMap((n) => n.intents)],
    refusals: nested.flatMap((n) => n.refusals),
  };
}
