/**
 * The Overview page: stat cards and the last run (refreshed every 10 s as one partial), and the
 * recent-activity feed (its own partial, refreshed every 10 s).
 */
import { Hono } from 'hono';

import { DAY_MS } from '../../clock.js';
import type { AppEnv } from '../app.js';
import type { WebDeps } from '../deps.js';
import { isHtmx, page, partial } from '../render.js';

export const FEED_SIZE = 40;

/**
 * What the stat cards show, at `deps.clock.now()`: the store's counts (critical events over the
 * last 24 h), the latest run, and the runner's state. Shared with /api/v1/stats.
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

export function overviewRoutes(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const activity = () => ({ items: deps.stores.stats.activity(FEED_SIZE) });

  app.get('/', (c) => {
    if (isHtmx(c)) return partial(c, 'partials/overview-stats', overviewStats(deps));
    return page(
      c,
      'pages/overview',
      { title: 'Overview', nav: 'overview' },
      { ...overviewStats(deps), ...activity() },
    );
  });

  app.get('/overview/activity', (c) => partial(c, 'partials/overview-activity', activity()));

  return app;
}
