/** /api/v1/cooldowns. */
import { Hono } from 'hono';

import type { AppEnv } from '../app.js';
import type { WebDeps } from '../deps.js';

export function cooldownApi(_deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  return app;
}
