/**
 * /api/v1/stats: the overview numbers for scripts and dashboard widgets. snake_case, times as
 * ISO 8601 strings (null when unset); `success_rate` is a fraction from 0 to 1, null before any
 * run has finished (see OverviewCounts for the definitions).
 */
import { Hono } from 'hono';

import { isoTime } from '../../db/index.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { overviewStats } from '../overview-data.js';

export function statsApi(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/', (c) => {
    const { now, criticalSince, counts, lastRun, runner } = overviewStats(deps);
    return c.json({
      generated_at: isoTime(now),
      root_sessions: counts.rootSessions,
      finished_runs: counts.finishedChains,
      succeeded_runs: counts.succeededChains,
      success_rate: counts.successRate,
      escalations: counts.escalations,
      total_cost_usd: counts.totalCostUsd,
      active_memories: counts.activeMemories,
      inactive_memories: counts.inactiveMemories,
      critical_events_24h: counts.criticalEvents,
      critical_events_since: isoTime(criticalSince),
      running: runner.running !== null,
      running_session_ids: runner.running?.sessionIds ?? [],
      queued: runner.queued.length,
      schedule: runner.schedule,
      next_run_at: isoTime(runner.nextRunAt),
      last_run: lastRun && {
        session_id: lastRun.rootId,
        last_session_id: lastRun.lastId,
        status: lastRun.status,
        trigger: lastRun.trigger,
        tier_reached: lastRun.tierReached,
        sessions: lastRun.sessions,
        started_at: isoTime(lastRun.startedAt),
        ended_at: isoTime(lastRun.endedAt),
        cost_usd: lastRun.costUsd,
        simulated: lastRun.simulated,
      },
    });
  });

  return app;
}
