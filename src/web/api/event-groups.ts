/**
 * /api/v1/event-groups: identical events (same service, level and message) as one group with a
 * count and first/last seen, filtered like /events, and acknowledging a group (who from the
 * credential, when from the clock). Acknowledged groups are left out unless `acked=show`; a
 * group acknowledged before its latest event is open again.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';

import { AppError } from '../../errors.js';
import { actorOf } from '../actor.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { parseEventQuery } from '../event-query.js';
import { eventGroupJson } from '../operator-json.js';
import { paging } from './json-body.js';
import {
  apiRouter,
  common,
  createRoute,
  err,
  idParams,
  ok,
  pagingQuery,
  time,
  z,
} from './openapi-app.js';

const GroupSchema = z
  .object({
    id: z.number().int(),
    service: z.string().nullable(),
    level: z.enum(['info', 'warning', 'critical']),
    message: z.string(),
    count: z.number().int(),
    first_seen: time,
    last_seen: time,
    acked: z.boolean(),
    acked_at: time,
    acked_by: z.string().nullable(),
  })
  .openapi('EventGroup');

const optional = (description: string) => z.string().optional().openapi({ description });

const listGroups = createRoute({
  method: 'get',
  path: '/',
  summary: 'Groups of identical events, most recently seen first',
  request: {
    query: z.object({
      level: optional('info, warning or critical'),
      service: optional('a service name'),
      q: optional('words in the message or service (each a word prefix)'),
      range: optional('1h, 24h, 7d or 30d back from now'),
      from: optional('last seen at or after this time (ISO; UTC without a zone)'),
      to: optional('first seen before this time'),
      acked: optional('show: include acknowledged groups'),
      instance: optional(
        "one instance's events: each group counted, first and last seen over them alone",
      ),
      ...pagingQuery(),
    }),
  },
  responses: {
    200: ok(
      'groups',
      z.object({
        groups: z.array(GroupSchema),
        total: z.number().int(),
        limit: z.number().int(),
        offset: z.number().int(),
      }),
    ),
    400: err('a bad filter, named'),
    ...common,
  },
});

const ackRoute = (action: 'ack' | 'reopen') =>
  createRoute({
    method: 'post',
    path: `/{id}/${action}`,
    summary:
      action === 'ack'
        ? 'Acknowledge a group: its events so far are hidden by default'
        : 'Withdraw the acknowledgement of a group',
    request: { params: idParams },
    responses: { 200: ok('the group', GroupSchema), 404: err('no such group'), ...common },
  });

export function eventGroupApi(deps: WebDeps): OpenAPIHono<AppEnv> {
  const app = apiRouter();
  const groups = deps.stores.eventGroups;

  app.openapi(listGroups, async (c) => {
    const { filter, problems } = parseEventQuery((n) => c.req.query(n), deps.clock.now());
    const problem = problems.find((p) => p.field !== 'session' && p.field !== 'source');
    if (problem) {
      throw new AppError('usage', `${problem.field} ${problem.message}`, {
        data: { field: problem.field },
      });
    }
    const { limit, offset } = paging(c, 100);
    const f = { ...filter, includeAcked: filter.includeAcked ?? false };
    return c.json(
      {
        groups: (await groups.listAwaited({ ...f, limit, offset })).map(eventGroupJson),
        total: await groups.countAwaited(f),
        limit,
        offset,
      },
      200,
    );
  });

  const notFound = (id: number | string) =>
    new AppError('not_found', `event group ${id} does not exist`);
  /** The group as it is now, answered after the change (awaited, as the change). */
  const answer = async (id: number) => {
    const g = await groups.getAwaited(id);
    if (!g) throw notFound(id);
    return eventGroupJson(g);
  };

  app.openapi(ackRoute('ack'), async (c) => {
    const id = Number(c.req.valid('param').id);
    const actor = actorOf(c);
    if (!(await groups.acknowledge(id, actor, deps.clock.now()))) throw notFound(id);
    deps.log.info('event group acknowledged', { group: id, by: actor });
    return c.json(await answer(id), 200);
  });

  app.openapi(ackRoute('reopen'), async (c) => {
    const id = Number(c.req.valid('param').id);
    if (!(await groups.reopen(id))) throw notFound(id);
    return c.json(await answer(id), 200);
  });

  return app;
}
