/** /api/v1/webhook. */
import { Hono } from 'hono';

import type { AppEnv } from '../app.js';
import type { WebDeps } from '../deps.js';

export function webhookApi(_deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  return app;
}
