/**
 * /api/v1/events: newest first, filtered by `level`, `service`, `session`, `source` and
 * `instance`, paged by `limit` (default 100) and `offset`. `{events, limit, offset, has_more}`; an unusable filter
 * value is a 400 naming the field.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';

import { eventJson } from '../../db/index.js';
import { AppError } from '../../errors.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { EVENT_LEVELS, EVENT_SOURCES, parseEventQuery } from '../event-query.js';
import { paging } from './json-body.js';
import { apiRouter, common, createRoute, err, oneOf, ok, pagingQuery, z } from './openapi-app.js';
import { EventSchema } from './openapi-schemas.js';

// In the order event-query.ts reports problems: the first one is the answer.
const EventQuerySchema = z.object({
  level: oneOf('level', EVENT_LEVELS),
  source: oneOf('source', EVENT_SOURCES),
  service: z
    .string()
    .refine((v) => v.trim().length <= 200, { error: 'service at most 200 characters' })
    .optional(),
  session: z
    .string()
    .regex(/^\s*(#?\d{1,15})?\s*$/, { error: 'session must be a session number' })
    .optional()
    .openapi({ description: 'a session number (`#12` or `12`)' }),
  // Checked by event-query.ts (shared with the Events page), which names the field.
  q: z.string().optional().openapi({ description: 'words in the message or service (prefixes)' }),
  range: z.string().optional().openapi({ description: '1h, 24h, 7d or 30d back from now' }),
  from: z.string().optional().openapi({ description: 'at or after (ISO; UTC without a zone)' }),
  to: z.string().optional().openapi({ description: 'before' }),
  acked: z.string().optional().openapi({
    description: 'show: include events an acknowledged event group covers (hidden by default)',
  }),
  instance: z
    .string()
    .optional()
    .openapi({ description: 'only the events this instance (WATCHKEEPER_INSTANCE) wrote' }),
  ...pagingQuery(),
});

const listEvents = createRoute({
  method: 'get',
  path: '/',
  summary: 'Events, newest first',
  request: { query: EventQuerySchema },
  responses: {
    200: ok(
      'events',
      z.object({
        events: z.array(EventSchema),
        limit: z.number().int(),
        offset: z.number().int(),
        has_more: z.boolean(),
        total: z.number().int().openapi({ description: 'how many events the filters match' }),
      }),
    ),
    400: err('a bad filter, named'),
    ...common,
  },
});

export function eventApi(deps: WebDeps): OpenAPIHono<AppEnv> {
  const app = apiRouter();

  app.openapi(listEvents, async (c) => {
    const { filter, problems } = parseEventQuery((n) => c.req.query(n), deps.clock.now());
    const problem = problems[0];
    if (problem) {
      throw new AppError('usage', `${problem.field} ${problem.message}`, {
        data: { field: problem.field },
      });
    }
    const { limit, offset } = paging(c, 100);
    // One row more than asked tells whether there is more, without counting the table.
    const rows = await deps.stores.events.listAwaited({ ...filter, limit: limit + 1, offset });
    return c.json(
      {
        events: rows.slice(0, limit).map(eventJson),
        limit,
        offset,
        has_more: rows.length > limit,
        total: await deps.stores.events.countAwaited(filter),
      },
      200,
    );
  });

  return app;
}
