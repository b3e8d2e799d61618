/** The JSON API under /api/v1: one router per resource, mounted here. */
import { Hono } from 'hono';

import { conversationApi } from '../api/conversations.js';
import { cooldownApi } from '../api/cooldowns.js';
import { eventApi } from '../api/events.js';
import { gatewayApi } from '../api/gateway.js';
import { graphApi } from '../api/graph.js';
import { memoryApi } from '../api/memories.js';
import { OPENAPI } from '../api/openapi.js';
import { scopeApi } from '../api/scopes.js';
import { serviceApi } from '../api/services.js';
import { sessionApi } from '../api/sessions.js';
import { statsApi } from '../api/stats.js';
import { webhookApi } from '../api/webhook.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';

export function apiRoutes(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/health', (c) => c.json({ status: 'ok' }));
  app.get('/openapi.json', (c) => c.json(OPENAPI));
  app.route('/stats', statsApi(deps));
  app.route('/sessions', sessionApi(deps));
  app.route('/events', eventApi(deps));
  app.route('/memories', memoryApi(deps));
  app.route('/services', serviceApi(deps));
  app.route('/cooldowns', cooldownApi(deps));
  app.route('/webhook', webhookApi(deps));
  app.route('/conversations', conversationApi(deps));
  app.route('/scopes', scopeApi(deps));
  app.route('/gateway', gatewayApi(deps));
  app.route('/graph', graphApi(deps));
  return app;
}
