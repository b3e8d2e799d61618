/**
 * Acknowledging a group of identical events from the Events page (and withdrawing it), with who
 * and when. The table refreshes itself (`events-changed`), so an acknowledged group leaves the
 * default view at once. Acknowledge selected sends many ids in one post: all are acknowledged,
 * or, when one does not exist, none.
 */
import { type Context, Hono } from 'hono';

import { AppError } from '../../errors.js';
import { actorOf } from '../actor.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { isHtmx } from '../render.js';

const MAX_IDS = 500;

/** The `ids` of a bulk acknowledgement: one or more group ids, each digits only. */
function groupIds(value: unknown): number[] {
  const list = (Array.isArray(value) ? value : value === undefined ? [] : [value]).map(String);
  if (list.length === 0)
    throw new AppError('invalid_input', 'ids: select at least one group', {
      data: { field: 'ids' },
    });
  if (list.length > MAX_IDS)
    throw new AppError('invalid_input', `ids: at most ${MAX_IDS} at once`, {
      data: { field: 'ids' },
    });
  const bad = list.find((id) => !/^[0-9]{1,15}$/.test(id));
  if (bad !== undefined)
    throw new AppError('invalid_input', `ids: "${bad.slice(0, 20)}" is not a group id`, {
      data: { field: 'ids' },
    });
  return [...new Set(list.map(Number))];
}

export function eventGroupRoutes(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const groups = deps.stores.eventGroups;

  const done = (c: Context<AppEnv>) => {
    if (!isHtmx(c)) return c.redirect('/events?view=groups', 303);
    c.header('HX-Trigger', 'events-changed');
    return c.html('', 200);
  };

  // The route pattern lets only digits through.
  app.post('/events/groups/:id{[0-9]+}/ack', async (c) => {
    const id = Number(c.req.param('id'));
    const actor = actorOf(c);
    if (!(await groups.acknowledge(id, actor, deps.clock.now())))
      throw new AppError('not_found', `event group ${id} does not exist`);
    deps.log.info('event group acknowledged', { group: id, by: actor });
    return done(c);
  });

  app.post('/events/groups/ack', async (c) => {
    const ids = groupIds((await c.req.parseBody({ all: true })).ids);
    const actor = actorOf(c);
    const missing = await groups.acknowledgeAll(ids, actor, deps.clock.now());
    if (missing.length > 0) {
      const which = missing.join(', ');
      throw new AppError(
        'not_found',
        `event group${missing.length === 1 ? '' : 's'} ${which} do${missing.length === 1 ? 'es' : ''} not exist: nothing was acknowledged`,
      );
    }
    deps.log.info('event groups acknowledged', { groups: ids.length, by: actor });
    return done(c);
  });

  app.post('/events/groups/:id{[0-9]+}/reopen', async (c) => {
    const id = Number(c.req.param('id'));
    if (!(await groups.reopen(id)))
      throw new AppError('not_found', `event group ${id} does not exist`);
    return done(c);
  });

  return app;
}
