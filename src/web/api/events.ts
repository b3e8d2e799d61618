/**
 * /api/v1/events: newest first, filtered by `level`, `service`, `session` and `source`, paged by
 * `limit` (default 100) and `offset`. `{events, limit, offset, has_more}`; an unusable filter
 * value is a 400 naming the field.
 */
import { Hono } from 'hono';

import { eventJson } from '../../db/index.js';
import { AppError } from '../../errors.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { parseEventQuery } from '../event-query.js';
import { paging } from './json-body.js';

export function eventApi(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/', (c) => {
    const { filter, problems } = parseEventQuery((n) => c.req.query(n));
    const problem = problems[0];
    if (problem) {
      throw new AppError('usage', `${problem.field} ${problem.message}`, {
        data: { field: problem.field },
      });
    }
    const { limit, offset } = paging(c, 100);
    // One row more than asked tells whether there is more, without counting the table.
    const rows = deps.stores.events.list({ ...filter, limit: limit + 1, offset });
    return c.json({
      events: rows.slice(0, limit).map(eventJson),
      limit,
      offset,
      has_more: rows.length > limit,
    });
  });

  return app;
}
