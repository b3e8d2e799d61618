/**
 * The Overview page: stat cards and the last run (refreshed every 10 s as one partial), and the
 * recent-activity feed (its own partial, refreshed every 10 s).
 */
import { Hono } from 'hono';

import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { activityFeed, overviewStats } from '../overview-data.js';
import { isHtmx, page, partial } from '../render.js';

const FEED_SIZE = 40;
// Repeats fold into one line, so the feed reads further back than the lines it shows.
const FEED_WINDOW = FEED_SIZE * 5;

export function overviewRoutes(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const activity = async () => ({
    now: deps.clock.now(),
    items: activityFeed(await deps.stores.stats.activity(FEED_WINDOW), FEED_SIZE),
  });

  app.get('/', async (c) => {
    if (isHtmx(c)) return partial(c, 'partials/overview-stats', await overviewStats(deps));
    return page(
      c,
      'pages/overview',
      { title: 'Overview', nav: 'overview' },
      { ...(await overviewStats(deps)), ...(await activity()) },
    );
  });

  app.get('/overview/activity', async (c) =>
    partial(c, 'partials/overview-activity', await activity()),
  );

  return app;
}
