/** /api/v1/sessions. */
import { Hono } from 'hono';

import type { AppEnv } from '../app.js';
import type { WebDeps } from '../deps.js';

export function sessionApi(_deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  return app;
}
