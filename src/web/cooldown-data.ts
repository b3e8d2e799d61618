/** The cooldown picture, shared by the Cooldowns page and /api/v1/cooldowns. */
import type { WebDeps } from './deps.js';

export const RECENT_ACTIONS_SHOWN = 200;
export const BLOCKS_SHOWN = 100;
export const OVERRIDES_SHOWN = 50;

/**
 * The cooldown picture at `deps.clock.now()`: the configured limits, the runner's per-service
 * state, the newest actions and blocked attempts since the widest window began.
 */
export function cooldownOverview(deps: WebDeps) {
  const now = deps.clock.now();
  const since = deps.runner.cooldownHorizon(now);
  return {
    now,
    since,
    limits: deps.config.cooldowns,
    services: deps.runner.cooldownState(now),
    recentActions: deps.stores.cooldowns.since(since).slice(0, RECENT_ACTIONS_SHOWN),
    blocked: deps.stores.cooldowns.blocksSince(since, BLOCKS_SHOWN),
    overrides: deps.stores.cooldownOverrides.recent(OVERRIDES_SHOWN),
  };
}
