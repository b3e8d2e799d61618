/**
 * The PreToolUse hook's decision: a Bash command that would restart or redeploy a service in
 * cooldown is refused (exit 2, reason on stderr, which the CLI hands to the model as the tool
 * result). Allowed remediation attempts are recorded so the limits hold even when the model
 * never reports them. Everything else passes untouched.
 */
import type { Clock } from '../clock.js';
import type { CooldownLimits } from '../config.js';
import type { Stores } from '../db/index.js';
import type { CooldownAction } from '../stream/index.js';
import {
  mentions,
  remediationIntents,
  type RemediationIntent,
  targetMatches,
} from './command-guard.js';
import {
  cooldownHorizon,
  cooldownReason,
  cooldownState,
  type ServiceCooldown,
} from './cooldown-policy.js';

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
}

const ALLOW: HookDecision = { exitCode: 0, stderr: '' };

/** The Bash command of a PreToolUse payload, or null for any other tool. */
export function bashCommand(payload: unknown): string | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const p = payload as { tool_name?: unknown; tool_input?: { command?: unknown } };
  if (p.tool_name !== 'Bash') return null;
  return typeof p.tool_input?.command === 'string' ? p.tool_input.command : null;
}

/** The first in-cooldown (service, action) an intent would hit, if any. */
function firstConflict(
  command: string,
  intent: RemediationIntent,
  state: readonly ServiceCooldown[],
): ServiceCooldown | null {
  for (const s of state) {
    if (s.action !== intent.action || !s.inCooldown) continue;
    if (intent.targets.some((t) => targetMatches(t, s.service) || targetMatches(s.service, t)))
      return s;
    if (intent.untargeted && mentions(command, s.service)) return s;
  }
  return null;
}

function disabledReason(action: CooldownAction): string {
  return `watchkeeper: ${action}s are disabled by configuration (limit 0). Report that a human is needed.`;
}

export function decidePreToolUse(payload: unknown, ctx: HookContext): HookDecision {
  const command = bashCommand(payload);
  if (command === null) return ALLOW;
  const intents = remediationIntents(command);
  if (intents.length === 0) return ALLOW;

  const now = ctx.clock.now();
  const state = cooldownState(
    ctx.stores.cooldowns.since(cooldownHorizon(ctx.limits, now)),
    ctx.limits,
    now,
  );
  for (const intent of intents) {
    const disabled = ctx.limits[intent.action].limit === 0;
    const conflict = disabled ? null : firstConflict(command, intent, state);
    if (!disabled && !conflict) continue;
    const service = conflict?.service ?? intent.targets[0] ?? '*';
    const reason = conflict ? cooldownReason(conflict) : disabledReason(intent.action);
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
      level: 'warning',
      service: service === '*' ? null : service,
      message: `Blocked ${intent.action} (cooldown): ${command.length > 300 ? `${command.slice(0, 300)}…` : command}`,
      createdAt: now,
    });
    return { exitCode: 2, stderr: reason };
  }
  for (const intent of intents) {
    for (const target of new Set(intent.targets)) {
      ctx.stores.cooldowns.insert({
        service: target,
        actionType: intent.action,
        success: null,
        source: 'hook',
        command,
        message: null,
        tier: ctx.tier,
        sessionId: ctx.sessionId,
        createdAt: now,
      });
    }
  }
  return ALLOW;
}
