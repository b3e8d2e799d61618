/**
 * The cooldown state at `now` as the guard, the session's prompt and the dashboard see it: the
 * actions inside the windows with the operator's resets and allowances applied. This instance's
 * actions and overrides count (with the fleet-wide overrides), and every instance's on
 * `sharedServices` (config.fleet.cooldownServices).
 */
import type { CooldownLimits } from '../config/index.js';
import type { Stores } from '../db/index.js';
import { cooldownHorizon, cooldownState, type ServiceCooldown } from './cooldown-policy.js';

export function currentCooldowns(
  stores: Pick<Stores, 'cooldowns' | 'cooldownOverrides'>,
  limits: CooldownLimits,
  now: number,
  sharedServices: readonly string[] = [],
): ServiceCooldown[] {
  const horizon = cooldownHorizon(limits, now);
  return cooldownState(
    stores.cooldowns.counted(horizon, sharedServices),
    limits,
    now,
    stores.cooldownOverrides.effective(now, horizon, sharedServices),
    sharedServices,
  );
}

/** The same, its reads awaited (a session's start, in serve: on PostgreSQL the loop goes on). */
export async function currentCooldownsAwaited(
  stores: Pick<Stores, 'cooldowns' | 'cooldownOverrides'>,
  limits: CooldownLimits,
  now: number,
  sharedServices: readonly string[] = [],
): Promise<ServiceCooldown[]> {
  const horizon = cooldownHorizon(limits, now);
  const [counted, overrides] = await Promise.all([
    stores.cooldowns.countedAwaited(horizon, sharedServices),
    stores.cooldownOverrides.effectiveAwaited(now, horizon, sharedServices),
  ]);
  return cooldownState(counted, limits, now, overrides, sharedServices);
}
