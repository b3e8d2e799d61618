/** Routes of the overview page. */
import { Hono } from 'hono';

import type { AppEnv } from '../app.js';
import type { WebDeps } from '../deps.js';

export function overviewRoutes(_deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  return app;
}
