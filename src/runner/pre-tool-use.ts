/**
 * The PreToolUse hook's decision: a Bash command, or a call of an MCP tool, that would restart
 * or redeploy a service in cooldown is refused (exit 2, reason on stderr, which the CLI hands to
 * the model as the tool result). Allowed remediation attempts are recorded so the limits hold
 * even when the model never reports them. Everything else passes untouched.
 */
import type { GuardAllowance } from '../config/index.js';
import { findConflict, recordableTargets, unallowedRefusals } from './command-guard.js';
import { currentCooldowns } from './cooldown-now.js';
import type { HookContext, HookDecision } from './pre-tool-use/context.js';
import { refuseConflict, refuseDryRun, refuseUnreadable } from './pre-tool-use/refusals.js';
import { toolIntents } from './pre-tool-use/tool-check.js';

export type { HookContext, HookDecision } from './pre-tool-use/context.js';
export { toolIntents } from './pre-tool-use/tool-check.js';
export { type RuleContext, runbookRefusal } from './pre-tool-use/runbook-rules.js';
export { rulesFor } from './pre-tool-use/rules-for.js';
export { RuleWatch } from './pre-tool-use/rule-watch.js';

const NOTHING_ALLOWED: GuardAllowance = { interpreters: [], aliases: false };

const ALLOW: HookDecision = { exitCode: 0, stderr: '' };

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
  if (conflict) return refuseConflict(command, conflict, ctx, now);
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
