/**
 * The Notifications page: the targets (redacted), the settings, and the delivery log: each
 * notification with its count and each target's status, attempts, last error and next retry.
 * The body refreshes every 10 s; "Send a test notification" queues one to every target.
 */
import { Hono } from 'hono';

import { actorOf } from '../actor.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { apiError } from '../errors.js';
import { notificationOverview, pageParam } from '../notification-data.js';
import { isHtmx, page, partial } from '../render.js';

export function notificationRoutes(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/notifications', (c) => {
    const data = notificationOverview(deps, pageParam(c.req.query('page')));
    if (isHtmx(c)) return partial(c, 'partials/notification-body', data);
    return page(c, 'pages/notifications', { title: 'Notifications', nav: 'notifications' }, data);
  });

  app.post('/notifications/test', (c) => {
    if (!deps.notifications) {
      return apiError(c, 409, 'not_configured', 'notifications are not set up in this process');
    }
    const targets = deps.notifications.targets().length;
    if (targets === 0) {
      return apiError(
        c,
        409,
        'no_targets',
        'no notification target is configured: set WATCHKEEPER_NOTIFY_URLS or WATCHKEEPER_APPRISE_URLS',
      );
    }
    const id = deps.notifications.sendTest(actorOf(c));
    deps.log.info('test notification requested', { notification: id });
    if (!isHtmx(c)) return c.redirect('/notifications', 303);
    c.header('HX-Trigger', 'notifications-changed');
    return partial(c, 'partials/flash', {
      message: `Test notification #${id} queued for ${targets} target${targets === 1 ? '' : 's'}: the log below shows how it went.`,
    });
  });

  return app;
}
