/**
 * The PreToolUse hook's decision: a Bash command, or a call of an MCP tool, that would restart
 * or redeploy a service in cooldown is refused (exit 2, reason on stderr, which the CLI hands to
 * the model as the tool result). Allowed remediation attempts are recorded so the limits hold
 * even when the model never reports them. Everything else passes untouched.
 */
import type { Clock } from '../clock.js';
import type { CooldownLimits, GuardAllowance } from '../config/index.js';
import type { Stores } from '../db/index.js';
import type { CooldownAction } from '../stream/index.js';
import {
  checkCommand,
  type Conflict,
  conflictDetail,
  findConflict,
  recordableTargets,
  type Refusal,
  refusalDetail,
  unallowedRefusals,
} from './command-guard.js';
import { currentCooldowns } from './cooldown-now.js';
import { cooldownReason } from './cooldown-policy.js';
import { emitAlert, type OnAlert } from './alerts.js';
import { mcpToolIntents } from './guard/mcp-tools.js';
import type { RemediationIntent } from './guard/intent.js';

export interface HookDecision {
  /** 0 lets the tool run; 2 blocks it (Claude Code's blocking exit code). */
  exitCode: 0 | 2;
  stderr: string;
}

export interface HookContext {
  stores: Stores;
  limits: CooldownLimits;
  clock: Clock;
  sessionId: number | null;
  tier: number | null;
  /** WATCHKEEPER_DRY_RUN: every restart and redeployment is refused, at every tier. */
  dryRun?: boolean;
  /** Told of each attempt the cooldown guard refused (notifications). */
  onAlert?: OnAlert;
  /** Services whose limits count every instance's actions (config.fleet.cooldownServices). */
  sharedServices?: readonly string[];
  /** What the operator lets through that the guard would refuse (config.guard); none by default. */
  guard?: GuardAllowance;
}

const NOTHING_ALLOWED: GuardAllowance = { interpreters: [], aliases: false };

const ALLOW: HookDecision = { exitCode: 0, stderr: '' };

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

/** What a tool call could do (see ToolCheck); null for a tool the guard does not check. */
export async function toolIntents(payload: unknown): Promise<ToolCheck | null> {
  const command = bashCommand(payload);
  if (command !== null) return { command, ...(await checkCommand(command)) };
  if (typeof payload !== 'object' || payload === null) return null;
  const p = payload as { tool_name?: unknown; tool_input?: unknown };
  if (typeof p.tool_name !== 'string') return null;
  const found = mcpToolIntents(p.tool_name, p.tool_input);
  if (!found) return null;
  const nested = await Promise.all(found.commands.map((c) => checkCommand(c)));
  return {
    command: found.command,
    intents: [...found.intents, ...nested.flatMap((n) => n.intents)],
    refusals: nested.flatMap((n) => n.refusals),
  };
}

function disabledReason(action: CooldownAction, detail: string): string {
  return (
    `watchkeeper: ${action}s are disabled by configuration (limit 0). ${detail}. ` +
    'Report that a human is needed.'
  );
}

function reasonFor(conflict: Conflict): string {
  const detail = conflictDetail(conflict);
  return conflict.cooldown
    ? cooldownReason(conflict.cooldown, detail)
    : disabledReason(conflict.intent.action, detail);
}

/** A dry run changes nothing: the attempt is refused and recorded like a cooldown refusal. */
function refuseDryRun(
  command: string,
  intent: RemediationIntent,
  ctx: HookContext,
  now: number,
): HookDecision {
  const service = intent.targets[0] ?? '*';
  const verb = intent.action === 'restart' ? 'restart' : 'redeploy';
  const shown = command.length > 300 ? `${command.slice(0, 300)}…` : command;
  const reason =
    `watchkeeper: this is a dry run (WATCHKEEPER_DRY_RUN): nothing may be restarted or ` +
    `redeployed, at any tier. Refused \`${shown}\`: it could ${verb} ${service === '*' ? 'a service' : service}. ` +
    'Report what you would have done instead.';
  ctx.stores.cooldowns.recordBlock({
    service,
    actionType: intent.action,
    command,
    reason,
    sessionId: ctx.sessionId,
    createdAt: now,
  });
  ctx.stores.events.insert({
    sessionId: ctx.sessionId,
    source: 'system',
    level: 'info',
    service: service === '*' ? null : service,
    message: `Blocked ${intent.action} (dry run): ${shown}`,
    createdAt: now,
  });
  return { exitCode: 2, stderr: reason };
}

/** An alias, or interpreter code that can start a process: refused whatever the cooldowns say. */
function refuseUnreadable(
  command: string,
  refusal: Refusal,
  ctx: HookContext,
  now: number,
): HookDecision {
  const reason =
    `watchkeeper: ${refusalDetail(refusal)}. Run a restart as a plain command the guard can ` +
    'check (`docker restart NAME`, `systemctl restart NAME`), or report that a human is needed.';
  const shown = command.length > 300 ? `${command.slice(0, 300)}…` : command;
  ctx.stores.cooldowns.recordBlock({
    service: '*',
    actionType: 'restart',
    command,
    reason,
    sessionId: ctx.sessionId,
    createdAt: now,
  });
  ctx.stores.events.insert({
    sessionId: ctx.sessionId,
    source: 'system',
    level: 'warning',
    service: null,
    message: `Blocked a command the cooldown guard cannot check (${refusal.kind}): ${shown}`,
    createdAt: now,
  });
  emitAlert(ctx.onAlert, {
    kind: 'guard_refused',
    service: '*',
    action: 'restart',
    command,
    reason,
    sessionId: ctx.sessionId,
  });
  return { exitCode: 2, stderr: reason };
}

export async function decidePreToolUse(payload: unknown, ctx: HookContext): Promise<HookDecision> {
  const found = await toolIntents(payload);
  if (found === null) return ALLOW;
  const { command, intents } = found;
  const now = ctx.clock.now();
  // A cooldown refusal names the service, so it goes first; an allowed restart is recorded only
  // once nothing is refused.
  const [refusal] = unallowedRefusals(found.refusals, ctx.guard ?? NOTHING_ALLOWED);
  if (intents.length === 0) return refusal ? refuseUnreadable(command, refusal, ctx, now) : ALLOW;

  if (ctx.dryRun) return refuseDryRun(command, intents[0]!, ctx, now);
  const state = currentCooldowns(ctx.stores, ctx.limits, now, ctx.sharedServices ?? []);
  const conflict = findConflict(intents, state, ctx.limits);
  if (conflict) {
    const { service } = conflict;
    const action = conflict.intent.action;
    const reason = reasonFor(conflict);
    ctx.stores.cooldowns.recordBlock({
      service,
      actionType: action,
      command,
      reason,
      sessionId: ctx.sessionId,
      createdAt: now,
    });
    ctx.stores.events.insert({
      sessionId: ctx.sessionId,
      source: 'system',
      level: 'warning',
      service: service === '*' ? null : service,
      message: `Blocked ${action} (cooldown): ${command.length > 300 ? `${command.slice(0, 300)}…` : command}`,
      createdAt: now,
    });
    emitAlert(ctx.onAlert, {
      kind: 'guard_refused',
      service,
      action,
      command,
      reason,
      sessionId: ctx.sessionId,
    });
    return { exitCode: 2, stderr: reason };
  }
  if (refusal) return refuseUnreadable(command, refusal, ctx, now);
  for (const { service, action } of recordableTargets(intents)) {
    ctx.stores.cooldowns.insert({
      service,
      actionType: action,
      success: null,
      source: 'hook',
      command,
      message: null,
      tier: ctx.tier,
      sessionId: ctx.sessionId,
      createdAt: now,
    });
  }
  return ALLOW;
}
