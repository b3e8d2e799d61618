/**
 * The Settings page (read-only): the version, and the settings in effect with where each came
 * from, so an operator moving from Claude Ops sees which of their CLAUDEOPS_ names were read.
 * Claude Ops showed its settings at /config: that address leads here, so old bookmarks work.
 */
import { Hono } from 'hono';

import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { page } from '../render.js';
import { settingsPage } from '../settings-data.js';

export function settingsRoutes(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const data = settingsPage(deps.config.settings);
  app.get('/settings', (c) =>
    page(c, 'pages/settings', { title: 'Settings', nav: 'settings' }, data),
  );
  app.get('/config', (c) => c.redirect('/settings', 301));
  return app;
}
