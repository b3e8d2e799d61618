/**
 * The Runbooks page: what the operator's repositories and the built-in library give the
 * sessions (manifests, checks, playbooks, skills, MCP servers), read afresh from disk on each
 * request as a session would, with what is wrong in them and each check's last outcome.
 */
import { Hono } from 'hono';

import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { page } from '../render.js';
import { runbooksPage } from '../runbooks-data.js';
import { HEALTH_BADGE } from '../session-record.js';

export function runbookRoutes(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/runbooks', async (c) =>
    page(
      c,
      'pages/runbooks',
      { title: 'Runbooks', nav: 'runbooks' },
      { ...(await runbooksPage(deps)), healthBadge: HEALTH_BADGE },
    ),
  );
  return app;
}
