/**
 * The Notifications page: the targets (redacted), the settings, and the delivery log: each
 * notification with its count and each target's status, attempts, last error and next retry.
 * The body refreshes every 10 s; "Send a test notification" queues one to every target, and
 * without a target it is disabled and says which setting adds one.
 */
import { Hono } from 'hono';

import { actorOf } from '../actor.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { apiError } from '../errors.js';
import { NO_TARGET_MESSAGE, notificationOverview, pageParam } from '../notification-data.js';
import { isHtmx, page, partial } from '../render.js';

export function notificationRoutes(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/notifications', async (c) => {
    const data = await notificationOverview(deps, pageParam(c.req.query('page')));
    if (isHtmx(c)) return partial(c, 'partials/notification-body', data);
    return page(c, 'pages/notifications', { title: 'Notifications', nav: 'notifications' }, data);
  });

  app.post('/notifications/test', (c) => {
    // Without a target the button is shown disabled; a post anyway gets the same reason.
    const targets = deps.notifications?.targets().length ?? 0;
    if (!deps.notifications || targets === 0) {
      return apiError(c, 409, 'no_targets', NO_TARGET_MESSAGE);
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
