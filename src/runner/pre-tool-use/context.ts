/** What the PreToolUse hook decides with (the store, limits, session) and what it answers. */
import type { Clock } from '../../clock.js';
import type { CooldownLimits, GuardAllowance } from '../../config/index.js';
import type { Stores } from '../../db/index.js';
import type { OnAlert } from '../alerts.js';

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
