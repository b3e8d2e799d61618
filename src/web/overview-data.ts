/** The overview numbers, shared by the Overview page's stat cards and /api/v1/stats. */
import { DAY_MS } from '../clock.js';
import type { WebDeps } from './deps.js';

/**
 * What the stat cards show, at `deps.clock.now()`: the store's counts (critical events over the
 * last 24 h), the latest run, and the runner's state.
 */
export function overviewStats(deps: WebDeps) {
  const now = deps.clock.now();
  const criticalSince = now - DAY_MS;
  return {
    now,
    criticalSince,
    counts: deps.stores.stats.counts(criticalSince),
    lastRun: deps.stores.stats.lastRun(),
    runner: deps.runner.status(),
  };
}
