/**
 * `/metrics` (Prometheus) and the unauthenticated Homepage stats. `beforeAuth` runs ahead of
 * sign-in: it answers what needs no credential (metrics when WATCHKEEPER_METRICS=public, the
 * Homepage numbers) and refuses a scrape without one with a 401 a scraper understands, rather
 * than the sign-in redirect a browser gets. `routes` serves the authenticated scrape.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';

import { createScrape } from '../../metrics/index.js';
import { homepageStats } from '../api/homepage-stats.js';
import { COOKIE_NAME } from '../auth.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { apiError } from '../errors.js';

const METRICS_PATH = '/metrics';
const HOMEPAGE_PATH = '/api/v1/stats';

/** True when the request brings a credential of any kind (checked later by sign-in). */
function credentialSent(c: Context): boolean {
  return Boolean(c.req.header('Authorization')) || getCookie(c, COOKIE_NAME) !== undefined;
}

export function observabilityRoutes(deps: WebDeps): {
  beforeAuth: MiddlewareHandler<AppEnv>;
  routes: Hono<AppEnv>;
} {
  const { metrics, homepageStats: homepageOn } = deps.config.observability;
  const open = !deps.config.web.authToken && !deps.config.web.authUser;
  // Nothing is measured for a /metrics that is off: no process metrics, no registry.
  const scrape =
    metrics === 'off'
      ? null
      : createScrape({
          stored: (bounds) => deps.stores.metrics.read(bounds),
          runner: () => {
            const status = deps.runner.status();
            return { queued: status.queued.length, running: status.running !== null };
          },
        });
  const serveMetrics = async (c: Context) =>
    scrape
      ? c.body(await scrape.render(), 200, { 'Content-Type': scrape.contentType })
      : apiError(c, 404, 'not_found', '/metrics is off (WATCHKEEPER_METRICS=off)');
  const homepage = homepageStats(deps);

  const beforeAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
    if (c.req.path === METRICS_PATH) {
      if (metrics === 'off' || (metrics === 'public' && c.req.method === 'GET')) {
        return serveMetrics(c);
      }
      if (!open && !credentialSent(c)) {
        c.header('WWW-Authenticate', 'Bearer realm="watchkeeper"');
        return apiError(c, 401, 'unauthorized', 'send Authorization: Bearer TOKEN');
      }
    }
    if (
      homepageOn &&
      c.req.path === HOMEPAGE_PATH &&
      c.req.method === 'GET' &&
      !credentialSent(c)
    ) {
      return c.json(await homepage());
    }
    return next();
  };

  const routes = new Hono<AppEnv>();
  if (metrics === 'on') routes.get(METRICS_PATH, serveMetrics);
  return { beforeAuth, routes };
}
