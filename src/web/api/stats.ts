/**
 * /api/v1/stats: the overview numbers for scripts and dashboard widgets. snake_case, times as
 * ISO 8601 strings (null when unset); `success_rate` (by exit code) and `resolved_rate` (by
 * outcome) are fractions from 0 to 1, null before any run has finished (see OverviewCounts for
 * the definitions).
 */
import type { OpenAPIHono } from '@hono/zod-openapi';

import { isoTime } from '../../db/index.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { overviewStats } from '../overview-data.js';
import { apiRouter, common, createRoute, ok, time, z } from './openapi-app.js';

const StatsSchema = z
  .object({
    generated_at: time,
    root_sessions: z.number().int(),
    finished_runs: z.number().int(),
    succeeded_runs: z.number().int(),
    success_rate: z.number().nullable(),
    resolved_runs: z.number().int().openapi({
      description:
        'finished runs (chains) whose outcome is resolved: the last session completed, and no restart was refused, no critical event left, no tier limit or dry run held it back',
    }),
    needs_human_runs: z.number().int().openapi({
      description: 'finished runs not resolved, whatever their outcome (see outcomes)',
    }),
    outcomes: z.record(z.string(), z.number().int()).openapi({
      description:
        'runs by outcome: running, resolved, needs_human, failed, interrupted, shut_down, stopped',
    }),
    resolved_rate: z.number().nullable().openapi({
      description: 'resolved_runs / finished_runs; null before any run has finished',
    }),
    escalations: z.number().int(),
    total_cost_usd: z.number(),
    active_memories: z.number().int(),
    inactive_memories: z.number().int(),
    critical_events_24h: z.number().int(),
    critical_events_since: time,
    running: z.boolean(),
    running_session_ids: z.array(z.number().int()),
    queued: z.number().int(),
    schedule: z.string().nullable(),
    next_run_at: time,
    last_run: z
      .object({
        session_id: z.number().int(),
        last_session_id: z.number().int(),
        status: z.string(),
        outcome: z.string(),
        outcome_reasons: z.array(z.string()),
        trigger: z.string(),
        tier_reached: z.number().int(),
        sessions: z.number().int(),
        started_at: time,
        ended_at: time,
        cost_usd: z.number().nullable(),
        simulated: z.boolean(),
      })
      .nullable(),
  })
  .openapi('Stats');

const getStats = createRoute({
  method: 'get',
  path: '/',
  summary: 'The overview numbers',
  responses: { 200: ok('stats', StatsSchema), ...common },
});

export function statsApi(deps: WebDeps): OpenAPIHono<AppEnv> {
  const app = apiRouter();

  app.openapi(getStats, async (c) => {
    const { now, criticalSince, counts, lastRun, runner } = await overviewStats(deps);
    return c.json(
      {
        generated_at: isoTime(now),
        root_sessions: counts.rootSessions,
        finished_runs: counts.finishedChains,
        succeeded_runs: counts.succeededChains,
        success_rate: counts.successRate,
        resolved_runs: counts.resolvedChains,
        needs_human_runs: counts.needsHumanChains,
        outcomes: counts.outcomes,
        resolved_rate:
          counts.finishedChains === 0 ? null : counts.resolvedChains / counts.finishedChains,
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
          outcome: lastRun.outcome.kind,
          outcome_reasons: lastRun.outcome.reasons,
          trigger: lastRun.trigger,
          tier_reached: lastRun.tierReached,
          sessions: lastRun.sessions,
          started_at: isoTime(lastRun.startedAt),
          ended_at: isoTime(lastRun.endedAt),
          cost_usd: lastRun.costUsd,
          simulated: lastRun.simulated,
        },
      },
      200,
    );
  });

  return app;
}
