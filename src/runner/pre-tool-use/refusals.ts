/**
 * The guard's three refusals (a dry run, a command it cannot check, a cooldown conflict), each
 * recorded the one way: a blocked-attempt row, a system event with the command cut at 300
 * characters, and (unless a dry run) a `guard_refused` alert.
 */
import type { CooldownAction } from '../../stream/index.js';
import { type Conflict, conflictDetail, type Refusal, refusalDetail } from '../command-guard.js';
import { cooldownReason } from '../cooldown-policy.js';
import { emitAlert } from '../alerts.js';
import type { RemediationIntent } from '../guard/intent.js';
import type { HookContext, HookDecision } from './context.js';

/** The command as events and reasons show it: at most 300 characters. */
function shown(command: string): string {
  return command.length > 300 ? `${command.slice(0, 300)}…` : command;
}

interface RefusalRecord {
  /** The service refused, or `*` when the command names none. */
  service: string;
  action: CooldownAction;
  command: string;
  reason: string;
  event: { level: 'info' | 'warning'; blocked: string };
  alert: boolean;
}

/** Records the refusal (row, event, alert) and answers the hook's block. */
function recordRefusal(ctx: HookContext, now: number, r: RefusalRecord): HookDecision {
  const { service, action, command, reason } = r;
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
    level: r.event.level,
    service: service === '*' ? null : service,
    message: `Blocked ${r.event.blocked}: ${shown(command)}`,
    createdAt: now,
  });
  if (r.alert) {
    emitAlert(ctx.onAlert, {
      kind: 'guard_refused',
      service,
      action,
      command,
      reason,
      sessionId: ctx.sessionId,
    });
  }
  return { exitCode: 2, stderr: reason };
}

/** A dry run changes nothing: the attempt is refused and recorded like a cooldown refusal. */
export function refuseDryRun(
  command: string,
  intent: RemediationIntent,
  ctx: HookContext,
  now: number,
): HookDecision {
  const service = intent.targets[0] ?? '*';
  const verb = intent.action === 'restart' ? 'restart' : 'redeploy';
  const reason =
    `watchkeeper: this is a dry run (WATCHKEEPER_DRY_RUN): nothing may be restarted or ` +
    `redeployed, at any tier. Refused \`${shown(command)}\`: it could ${verb} ${service === '*' ? 'a service' : service}. ` +
    'Report what you would have done instead.';
  return recordRefusal(ctx, now, {
    service,
    action: intent.action,
    command,
    reason,
    event: { level: 'info', blocked: `${intent.action} (dry run)` },
    alert: false,
  });
}

/** An alias, or interpreter code that can start a process: refused whatever the cooldowns say. */
export function refuseUnreadable(
  command: string,
  refusal: Refusal,
  ctx: HookContext,
  now: number,
): HookDecision {
  const reason =
    `watchkeeper: ${refusalDetail(refusal)}. Run a restart as a plain command the guard can ` +
    'check (`docker restart NAME`, `systemctl restart NAME`), or report that a human is needed.';
  return recordRefusal(ctx, now, {
    service: '*',
    action: 'restart',
    command,
    reason,
    event: {
      level: 'warning',
      blocked: `a command the cooldown guard cannot check (${refusal.kind})`,
    },
    alert: true,
  });
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

/** A restart or redeployment of a service in cooldown (or whose limit is 0). */
export function refuseConflict(
  command: string,
  conflict: Conflict,
  ctx: HookContext,
  now: number,
): HookDecision {
  const action = conflict.intent.action;
  return recordRefusal(ctx, now, {
    service: conflict.service,
    action,
    command,
    reason: reasonFor(conflict),
    event: { level: 'warning', blocked: `${action} (cooldown)` },
    alert: true,
  });
}
