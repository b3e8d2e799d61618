/**
 * The cooldown guard's settings: which interpreters, alias tricks and command hooks it lets through, and how
 * many restarts and redeployments of one service it allows in a window.
 */
import type { z } from 'zod';

import { GUARD_HOOKS, GUARD_INTERPRETERS } from './guard-names.js';
import { bool, duration, int, list } from './parse.js';

export { GUARD_HOOKS, GUARD_INTERPRETERS };

/** What the cooldown guard lets through that it would otherwise refuse as unreadable. */
export interface GuardAllowance {
  /** Interpreter names (GUARD_INTERPRETERS) whose process-starting code may run; `all`. */
  interpreters: string[];
  /** Scripts may define aliases and turn on alias expansion. */
  aliases: boolean;
  /** Hook names (GUARD_HOOKS) whose command-running options and variables may be used; `all`. */
  hooks?: string[];
}

export interface CooldownLimits {
  restart: { limit: number; windowMs: number };
  redeployment: { limit: number; windowMs: number };
}

export const guardShape = {
  GUARD_ALLOW_INTERPRETERS: list
    .superRefine((items, ctx) => {
      const bad = items.filter((i) => i !== 'all' && !GUARD_INTERPRETERS.includes(i));
      if (bad.length > 0)
        ctx.addIssue({
          code: 'custom',
          message: `unknown interpreter ${bad.join(', ')}: use ${GUARD_INTERPRETERS.join(', ')} or all`,
        });
    })
    .default([]),
  GUARD_ALLOW_ALIASES: bool.default(false),
  GUARD_ALLOW_HOOKS: list
    .superRefine((items, ctx) => {
      const bad = items.filter((i) => i !== 'all' && !GUARD_HOOKS.includes(i));
      if (bad.length > 0)
        ctx.addIssue({
          code: 'custom',
          message: `unknown hook ${bad.join(', ')}: use ${GUARD_HOOKS.join(', ')} or all`,
        });
    })
    .optional(),
  RESTART_LIMIT: int(0, 1000).default(2),
  RESTART_WINDOW: duration(60_000).default(4 * 3_600_000),
  REDEPLOY_LIMIT: int(0, 1000).default(1),
  REDEPLOY_WINDOW: duration(60_000).default(24 * 3_600_000),
};

type GuardSettings = z.infer<z.ZodObject<typeof guardShape>>;

export function cooldownLimits(c: GuardSettings): CooldownLimits {
  return {
    restart: { limit: c.RESTART_LIMIT, windowMs: c.RESTART_WINDOW },
    redeployment: { limit: c.REDEPLOY_LIMIT, windowMs: c.REDEPLOY_WINDOW },
  };
}

export function guardAllowance(c: GuardSettings): GuardAllowance {
  return {
    interpreters: c.GUARD_ALLOW_INTERPRETERS,
    aliases: c.GUARD_ALLOW_ALIASES,
    hooks: c.GUARD_ALLOW_HOOKS,
  };
}
