/**
 * The Cooldowns page: the configured limits, per service and action the count inside its
 * window (and when a slot frees), the recent restarts and redeployments, and the attempts the
 * PreToolUse hook refused. The body refreshes every 10 s.
 */
import { Hono } from 'hono';

import type { CooldownLimits } from '../../config.js';
import type { AppEnv } from '../app.js';
import type { WebDeps } from '../deps.js';
import { isHtmx, page, partial } from '../render.js';

export const RECENT_ACTIONS_SHOWN = 200;
export const BLOCKS_SHOWN = 100;

/** The widest cooldown window, as of `now`: older actions count towards no limit. */
function horizon(limits: CooldownLimits, now: number): number {
  // Same rule as runner/cooldown-policy's cooldownHorizon, which web may not import at runtime.
  return now - Math.max(limits.restart.windowMs, limits.redeployment.windowMs);
}

/** A window length for people: whole hours as "6 h", anything else in minutes. */
export function windowText(ms: number): string {
  const hours = ms / 3_600_000;
  return Number.isInteger(hours) ? `${hours} h` : `${Math.round(ms / 60_000)} min`;
}

/**
 * The cooldown picture at `deps.clock.now()`: the configured limits, the runner's per-service
 * state, the newest actions and blocked attempts since the widest window began. Shared with
 * /api/v1/cooldowns.
 */
export function cooldownOverview(deps: WebDeps) {
  const now = deps.clock.now();
  const limits = deps.config.cooldowns;
  const since = horizon(limits, now);
  return {
    now,
    since,
    limits,
    services: deps.runner.cooldownState(now),
    recentActions: deps.stores.cooldowns.since(since).slice(0, RECENT_ACTIONS_SHOWN),
    blocked: deps.stores.cooldowns.blocksSince(since, BLOCKS_SHOWN),
  };
}

export function cooldownRoutes(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/cooldowns', (c) => {
    const data = { ...cooldownOverview(deps), windowText };
    if (isHtmx(c)) return partial(c, 'partials/cooldown-body', data);
    return page(c, 'pages/cooldowns', { title: 'Cooldowns', nav: 'cooldowns' }, data);
  });

  return app;
}
