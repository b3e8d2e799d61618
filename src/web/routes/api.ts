/**
 * The JSON API under /api/v1: one OpenAPIHono router per resource (src/web/api/openapi-app.ts),
 * mounted here; /openapi.json is generated from their routes.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';

import { conversationApi } from '../api/conversations.js';
import { cooldownOverrideApi } from '../api/cooldown-overrides.js';
import { cooldownApi } from '../api/cooldowns.js';
import { eventGroupApi } from '../api/event-groups.js';
import { eventApi } from '../api/events.js';
import { gatewayApi } from '../api/gateway.js';
import { graphApi } from '../api/graph.js';
import { memoryApi } from '../api/memories.js';
import { notificationApi } from '../api/notifications.js';
import { portabilityApi } from '../api/portability.js';
import { apiRoot, createRoute, ok, z } from '../api/openapi-app.js';
import { serveDocument } from '../api/openapi-document.js';
import { runQueueApi } from '../api/run-queue.js';
import { scopeApi } from '../api/scopes.js';
import { serviceApi } from '../api/services.js';
import { sessionApi } from '../api/sessions.js';
import { statsApi } from '../api/stats.js';
import { webhookApi } from '../api/webhook.js';
import { processHealth } from '../../metrics/index.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';

const health = createRoute({
  method: 'get',
  path: '/health',
  summary: 'Liveness',
  description:
    '`degraded` once an error escaped every handler (logged, and survived): the process serves, and its log says what failed.',
  security: [],
  responses: {
    200: ok(
      'up',
      z.object({
        status: z.enum(['ok', 'degraded']),
        unhandled_errors: z.number().int().optional(),
      }),
    ),
  },
});

export function apiRoutes(deps: WebDeps): OpenAPIHono<AppEnv> {
  const app = apiRoot();
  app.openapi(health, (c) => {
    const h = processHealth();
    return c.json(
      h.status === 'ok'
        ? { status: h.status }
        : { status: h.status, unhandled_errors: h.unhandledErrors },
      200,
    );
  });
  serveDocument(app);
  app.route('/stats', statsApi(deps));
  app.route('/sessions', sessionApi(deps));
  app.route('/events', eventApi(deps));
  app.route('/memories', portabilityApi(deps));
  app.route('/memories', memoryApi(deps));
  app.route('/services', serviceApi(deps));
  app.route('/cooldowns', cooldownApi(deps));
  app.route('/cooldowns', cooldownOverrideApi(deps));
  app.route('/event-groups', eventGroupApi(deps));
  app.route('/queue', runQueueApi(deps));
  app.route('/webhook', webhookApi(deps));
  app.route('/conversations', conversationApi(deps));
  app.route('/scopes', scopeApi(deps));
  app.route('/gateway', gatewayApi(deps));
  app.route('/graph', graphApi(deps));
  app.route('/notifications', notificationApi(deps));
  return app;
}
