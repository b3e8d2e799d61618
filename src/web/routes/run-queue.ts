/**
 * The run queue on the Sessions page: the running run and the queued ones (with how often an
 * alert repeated), and Cancel for a queued run, recorded with who did it.
 */
import { Hono } from 'hono';

import { actorOf } from '../actor.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { apiError } from '../errors.js';
import { isHtmx, partial } from '../render.js';

export function runQueueRoutes(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const queueData = (message: string | null = null) => ({
    ...deps.runner.queue(),
    message,
  });

  app.get('/sessions/queue', (c) => partial(c, 'partials/run-queue', queueData()));

  // Request ids are UUIDs; the pattern keeps anything else out of the log and the page.
  app.post('/sessions/queue/:id{[0-9a-zA-Z-]{1,100}}/cancel', (c) => {
    const id = c.req.param('id');
    const actor = actorOf(c);
    const result = deps.runner.cancel(id, actor);
    if (result.outcome === 'not_found') {
      return apiError(
        c,
        404,
        'not_found',
        `no run request ${id} (requests are remembered for a while)`,
      );
    }
    if (result.outcome === 'not_queued') {
      const message = `That run is ${result.ticket.state} now: only a queued run can be cancelled.`;
      if (!isHtmx(c)) return apiError(c, 409, 'not_queued', message);
      return partial(c, 'partials/run-queue', queueData(message), 409);
    }
    deps.log.info('queued run cancelled from the dashboard', { request: id, by: actor });
    if (!isHtmx(c)) return c.redirect('/sessions', 303);
    c.header('HX-Trigger', 'sessions-changed');
    return partial(
      c,
      'partials/run-queue',
      queueData(`Cancelled the queued ${result.ticket.request.trigger} run.`),
    );
  });

  return app;
}
