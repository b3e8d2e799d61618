/**
 * Acknowledging a group of identical events from the Events page (and withdrawing it), with who
 * and when. The table refreshes itself (`events-changed`), so an acknowledged group leaves the
 * default view at once.
 */
import { type Context, Hono } from 'hono';

import { AppError } from '../../errors.js';
import { actorOf } from '../actor.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { isHtmx } from '../render.js';

export function eventGroupRoutes(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const groups = deps.stores.eventGroups;

  const done = (c: Context<AppEnv>) => {
    if (!isHtmx(c)) return c.redirect('/events?view=groups', 303);
    c.header('HX-Trigger', 'events-changed');
    return c.html('', 200);
  };

  // The route pattern lets only digits through.
  app.post('/events/groups/:id{[0-9]+}/ack', (c) => {
    const id = Number(c.req.param('id'));
    const actor = actorOf(c);
    if (!groups.acknowledge(id, actor, deps.clock.now()))
      throw new AppError('not_found', `event group ${id} does not exist`);
    deps.log.info('event group acknowledged', { group: id, by: actor });
    return done(c);
  });

  app.post('/events/groups/:id{[0-9]+}/reopen', (c) => {
    const id = Number(c.req.param('id'));
    if (!groups.reopen(id)) throw new AppError('not_found', `event group ${id} does not exist`);
    return done(c);
  });

  return app;
}
