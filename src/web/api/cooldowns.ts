/**
 * /api/v1/cooldowns: `{limits, services, recent_actions, blocked}` as the Cooldowns page shows
 * them (actions and blocked attempts since the widest window began). snake_case, ISO times.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';

import { cooldownBlockJson, cooldownJson, isoTime } from '../../db/index.js';
import type { ServiceCooldown } from '../../runner/cooldown-policy.js';
import type { AppEnv } from '../context.js';
import { cooldownOverview } from '../cooldown-data.js';
import type { WebDeps } from '../deps.js';
import { apiRouter, common, createRoute, ok, time, z } from './openapi-app.js';

function serviceJson(s: ServiceCooldown) {
  return {
    service: s.service,
    action: s.action,
    count: s.count,
    limit: s.limit,
    window_ms: s.windowMs,
    in_cooldown: s.inCooldown,
    last_at: isoTime(s.lastAt),
    free_at: isoTime(s.freeAt),
  };
}

const ACTIONS = ['restart', 'redeployment'] as const;
const limit = z.object({ limit: z.number().int(), window_ms: z.number().int() });

const CooldownsSchema = z
  .object({
    generated_at: time,
    since: time,
    limits: z.object({ restart: limit, redeployment: limit }),
    services: z.array(
      z.object({
        service: z.string(),
        action: z.enum(ACTIONS),
        count: z.number().int(),
        limit: z.number().int(),
        window_ms: z.number().int(),
        in_cooldown: z.boolean(),
        last_at: time,
        free_at: time,
      }),
    ),
    recent_actions: z.array(
      z.object({
        id: z.number().int(),
        service: z.string(),
        action_type: z.enum(ACTIONS),
        success: z.boolean().nullable(),
        source: z.string(),
        command: z.string().nullable(),
        message: z.string().nullable(),
        tier: z.number().int().nullable(),
        session_id: z.number().int().nullable(),
        created_at: time,
        instance: z.string().openapi({ description: 'the sidecar whose session took it' }),
      }),
    ),
    blocked: z.array(
      z.object({
        id: z.number().int(),
        service: z.string(),
        action_type: z.enum(ACTIONS),
        command: z.string().nullable(),
        reason: z.string(),
        session_id: z.number().int().nullable(),
        created_at: time,
      }),
    ),
  })
  .openapi('Cooldowns');

const getCooldowns = createRoute({
  method: 'get',
  path: '/',
  summary: 'Limits, per-service counts in the windows, recent actions and blocked attempts',
  responses: { 200: ok('cooldowns', CooldownsSchema), ...common },
});

export function cooldownApi(deps: WebDeps): OpenAPIHono<AppEnv> {
  const app = apiRouter();

  app.openapi(getCooldowns, async (c) => {
    const { now, since, limits, services, recentActions, blocked } = await cooldownOverview(deps);
    return c.json(
      {
        generated_at: isoTime(now),
        since: isoTime(since),
        limits: {
          restart: { limit: limits.restart.limit, window_ms: limits.restart.windowMs },
          redeployment: {
            limit: limits.redeployment.limit,
            window_ms: limits.redeployment.windowMs,
          },
        },
        services: services.map(serviceJson),
        recent_actions: recentActions.map(cooldownJson),
        blocked: blocked.map(cooldownBlockJson),
      },
      200,
    );
  });

  return app;
}
