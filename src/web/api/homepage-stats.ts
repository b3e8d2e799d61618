/**
 * The Claude Ops sidecar's Homepage widget answer (gethomepage.dev "customapi"), at its path
 * `/api/v1/stats`, for a request that brings no credential while WATCHKEEPER_HOMEPAGE_STATS is
 * on: aggregate numbers only, under the Go sidecar's field names, so a widget configured for it
 * works unchanged. Its `last_session` (which carries the model's summary) is left out.
 */
import { DAY_MS } from '../../clock.js';
import { isoTime } from '../../db/index.js';
import { SESSION_DURATION_BUCKETS } from '../../metrics/index.js';
import type { WebDeps } from '../deps.js';
import { cachedFor } from '../ttl-cache.js';

/** Anyone may ask, as often as they like: the numbers are computed at most this often. */
const CACHE_MS = 10_000;

export interface HomepageStats {
  stats: {
    total_runs: number;
    escalations: number;
    remediations: number;
    success_rate: number;
    total_cost_usd: number;
    active_memories: number;
    critical_events: number;
    avg_duration_ms: number;
  };
  next_run: string | null;
}

export function homepageStats(deps: WebDeps): () => Promise<HomepageStats> {
  const now = () => deps.clock.now();
  return cachedFor(CACHE_MS, now, async () => {
    const counts = await deps.stores.stats.counts(now() - DAY_MS);
    // The same bounds as /metrics: one read serves both while the database is unchanged.
    const stored = await deps.stores.metrics.read(SESSION_DURATION_BUCKETS);
    const ended = stored.durations.reduce(
      (a, d) => ({ count: a.count + d.count, seconds: a.seconds + d.sumSeconds }),
      { count: 0, seconds: 0 },
    );
    return {
      stats: {
        // Runs are chains: root sessions, imported transcripts left out.
        total_runs: counts.rootSessions,
        escalations: counts.escalations,
        // Restarts and redeployments recorded, where Claude Ops counted tier-3 sessions.
        remediations: stored.remediations.reduce((a, r) => a + r.count, 0),
        // Chains that ended completed, of those that ended (0 before any has).
        success_rate: counts.successRate ?? 0,
        total_cost_usd: counts.totalCostUsd,
        active_memories: counts.activeMemories,
        critical_events: counts.criticalEvents,
        avg_duration_ms: ended.count === 0 ? 0 : Math.round((ended.seconds * 1000) / ended.count),
      },
      next_run: isoTime(deps.runner.status().nextRunAt),
    };
  });
}
