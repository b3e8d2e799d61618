/** The cooldown picture, shared by the Cooldowns page and /api/v1/cooldowns. */
import type { CooldownBlockRow } from '../db/index.js';
import type { WebDeps } from './deps.js';
import { groupRepeats, type Repeated } from './repeat-groups.js';

export const RECENT_ACTIONS_SHOWN = 200;
export const BLOCKS_SHOWN = 100;
export const OVERRIDES_SHOWN = 50;
// The hook refuses the same attempt every minute while a service is in cooldown: the page reads
// a day of that to fold it into one row.
const BLOCKS_READ = 2000;

/** Blocked attempts with the same service, action and reason, as one row with a count. */
export function blockedGroups(blocks: readonly CooldownBlockRow[]): Repeated<CooldownBlockRow>[] {
  return groupRepeats(
    blocks,
    (b) => JSON.stringify([b.service, b.actionType, b.reason]),
    (b) => b.createdAt,
  ).slice(0, BLOCKS_SHOWN);
}

/**
 * The cooldown picture at `deps.clock.now()`: the configured limits, the runner's per-service
 * state, the newest actions and blocked attempts since the widest window began.
 */
export async function cooldownOverview(deps: WebDeps) {
  const now = deps.clock.now();
  const since = deps.runner.cooldownHorizon(now);
  // Read awaited, side by side: the page polls (on PostgreSQL the event loop goes on).
  const [blocks, services, actions, overrides] = await Promise.all([
    deps.stores.cooldowns.blocksSince(since, BLOCKS_READ),
    deps.runner.cooldownState(now),
    deps.stores.cooldowns.since(since),
    deps.stores.cooldownOverrides.recent(OVERRIDES_SHOWN),
  ]);
  return {
    now,
    since,
    limits: deps.config.cooldowns,
    services,
    recentActions: actions.slice(0, RECENT_ACTIONS_SHOWN),
    blocked: blocks.slice(0, BLOCKS_SHOWN),
    blockedGroups: blockedGroups(blocks),
    overrides,
  };
}
