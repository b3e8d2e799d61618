/**
 * /api/v1/cooldowns: `{limits, services, recent_actions, blocked}` as the Cooldowns page shows
 * them (actions and blocked attempts since the widest window began). snake_case, ISO times.
 */
import { Hono } from 'hono';

import { cooldownBlockJson, cooldownJson, isoTime } from '../../db/index.js';
import type { ServiceCooldown } from '../../runner/cooldown-policy.js';
import type { AppEnv } from '../context.js';
import { cooldownOverview } from '../cooldown-data.js';
import type { WebDeps } from '../deps.js';

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

export function cooldownApi(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/', (c) => {
    const { now, since, limits, services, recentActions, blocked } = cooldownOverview(deps);
    return c.json({
      generated_at: isoTime(now),
      since: isoTime(since),
      limits: {
        restart: { limit: limits.restart.limit, window_ms: limits.restart.windowMs },
        redeployment: { limit: limits.redeployment.limit, window_ms: limits.redeployment.windowMs },
      },
      services: services.map(serviceJson),
      recent_actions: recentActions.map(cooldownJson),
      blocked: blocked.map(cooldownBlockJson),
    });
  });

  return app;
}
