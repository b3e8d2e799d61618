/**
 * The Cooldowns page: the configured limits, per service and action the count inside its
 * window (and when a slot frees), the recent restarts and redeployments, and the attempts the
 * PreToolUse hook refused. The body refreshes every 10 s.
 */
import { Hono } from 'hono';

import type { AppEnv } from '../context.js';
import { cooldownOverview } from '../cooldown-data.js';
import type { WebDeps } from '../deps.js';
import { isHtmx, page, partial } from '../render.js';

export function cooldownRoutes(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/cooldowns', async (c) => {
    const data = await cooldownOverview(deps);
    if (isHtmx(c)) return partial(c, 'partials/cooldown-body', data);
    return page(c, 'pages/cooldowns', { title: 'Cooldowns', nav: 'cooldowns' }, data);
  });

  return app;
}
