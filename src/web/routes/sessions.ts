/** Routes of the sessions page. */
import { Hono } from 'hono';

import type { AppEnv } from '../app.js';
import type { WebDeps } from '../deps.js';

export function sessionRoutes(_deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  return app;
}
