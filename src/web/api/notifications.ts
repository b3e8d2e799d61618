/**
 * /api/v1/notifications: the targets (redacted), the settings, delivery totals and the latest
 * notifications, each with every target's delivery (status, attempts, last error, next retry),
 * as the Notifications page shows them; POST /test queues a test notification to every target.
 * snake_case, ISO times. No secret is ever in an answer: targets are shown by their redacted URL
 * and errors were redacted before they were stored.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';

import { DELIVERY_STATUSES, isoTime, NOTIFICATION_KINDS } from '../../db/index.js';
import { actorOf } from '../actor.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { apiError } from '../errors.js';
import {
  NO_TARGET_MESSAGE,
  notificationOverview,
  NOTIFICATIONS_PAGE_SIZE,
} from '../notification-data.js';
import { apiRouter, common, createRoute, err, ok, time, wholeNumber, z } from './openapi-app.js';

const DeliverySchema = z.object({
  id: z.number().int(),
  target: z.string().openapi({ description: 'the target URL, redacted' }),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  last_error: z.string().nullable(),
  next_attempt_at: time,
  sent_at: time,
  updated_at: time,
});

const NotificationsSchema = z
  .object({
    generated_at: time,
    targets: z.array(
      z.object({
        target: z.string(),
        kind: z.string(),
        via: z.string(),
        setting: z.string(),
      }),
    ),
    settings: z
      .object({
        escalation_tier: z.number().int().nullable(),
        dedup_window_ms: z.number().int(),
        rate_limit_per_hour: z.number().int(),
        retries: z.number().int(),
      })
      .nullable(),
    deliveries: z.record(z.enum(DELIVERY_STATUSES), z.number().int()),
    total: z.number().int(),
    page: z.number().int(),
    pages: z.number().int(),
    notifications: z.array(
      z.object({
        id: z.number().int(),
        kind: z.enum(NOTIFICATION_KINDS),
        level: z.enum(['info', 'warning', 'failure']),
        service: z.string().nullable(),
        title: z.string(),
        body: z.string(),
        count: z.number().int(),
        session_id: z.number().int().nullable(),
        created_at: time,
        last_seen_at: time,
        deliveries: z.array(DeliverySchema),
      }),
    ),
  })
  .openapi('Notifications');

const listNotifications = createRoute({
  method: 'get',
  path: '/',
  summary: `Targets, settings and the delivery log, ${NOTIFICATIONS_PAGE_SIZE} notifications a page`,
  request: { query: z.object({ page: wholeNumber('page', 10_000_000, 1) }) },
  responses: { 200: ok('notifications', NotificationsSchema), 400: err('a bad page'), ...common },
});

const sendTest = createRoute({
  method: 'post',
  path: '/test',
  summary: 'Queue a test notification to every target',
  responses: {
    202: ok('queued', z.object({ notification_id: z.number().int(), targets: z.number().int() })),
    409: err('no target is configured'),
    ...common,
  },
});

export function notificationApi(deps: WebDeps): OpenAPIHono<AppEnv> {
  const app = apiRouter();

  app.openapi(listNotifications, async (c) => {
    const page = Number(c.req.valid('query').page || '1');
    const d = await notificationOverview(deps, page);
    return c.json(
      {
        generated_at: isoTime(d.now),
        targets: d.targets.map((t) => ({
          target: t.key,
          kind: t.kind,
          via: t.via,
          setting: t.setting,
        })),
        settings: d.settings && {
          escalation_tier: d.settings.escalationTier,
          dedup_window_ms: d.settings.dedupWindowMs,
          rate_limit_per_hour: d.settings.rateLimitPerHour,
          retries: d.settings.retries,
        },
        deliveries: d.counts,
        total: d.total,
        page: d.page,
        pages: d.pages,
        notifications: d.items.map(({ notification: n, deliveries }) => ({
          id: n.id,
          kind: n.kind,
          level: n.level,
          service: n.service,
          title: n.title,
          body: n.body,
          count: n.count,
          session_id: n.sessionId,
          created_at: isoTime(n.createdAt),
          last_seen_at: isoTime(n.lastSeenAt),
          deliveries: deliveries.map((x) => ({
            id: x.id,
            target: x.targetKey,
            status: x.status,
            attempts: x.attempts,
            last_error: x.lastError,
            next_attempt_at: isoTime(x.nextAttemptAt),
            sent_at: isoTime(x.sentAt),
            updated_at: isoTime(x.updatedAt),
          })),
        })),
      },
      200,
    );
  });

  app.openapi(sendTest, (c) => {
    const targets = deps.notifications?.targets().length ?? 0;
    if (!deps.notifications || targets === 0) {
      return apiError(c, 409, 'no_targets', NO_TARGET_MESSAGE) as never;
    }
    const id = deps.notifications.sendTest(actorOf(c));
    return c.json({ notification_id: id, targets }, 202);
  });

  return app;
}
