/**
 * /api/v1/queue: the running run and the queued ones (manual, API, alert and scheduled), and
 * cancelling a queued run, recorded with who did it.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';

import { AppError } from '../../errors.js';
import { actorOf } from '../actor.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { apiError } from '../errors.js';
import { queuedRunJson } from '../operator-json.js';
import { apiRouter, common, createRoute, err, ok, time, z } from './openapi-app.js';

const RunSchema = z
  .object({
    request_id: z.string(),
    state: z.enum(['queued', 'running', 'done', 'failed', 'cancelled']),
    trigger: z.string(),
    tier: z.number().int(),
    prompt: z.string().nullable(),
    alert: z.string().nullable(),
    queued_at: time,
    repeats: z.number().int().openapi({
      description: 'how many more times the same alert arrived within the de-duplication window',
    }),
    session_ids: z.array(z.number().int()),
    cancelled_by: z.string().nullable(),
  })
  .openapi('QueuedRun');

const getQueue = createRoute({
  method: 'get',
  path: '/',
  summary: 'The running run and the queued ones, in the order they start',
  responses: {
    200: ok('the queue', z.object({ running: RunSchema.nullable(), queued: z.array(RunSchema) })),
    ...common,
  },
});

const cancelRun = createRoute({
  method: 'post',
  path: '/{id}/cancel',
  summary: 'Take a queued run out of the queue',
  request: {
    params: z.object({
      id: z
        .string()
        .min(1)
        .max(100)
        .openapi({ param: { name: 'id', in: 'path' } }),
    }),
  },
  responses: {
    200: ok('cancelled', RunSchema),
    404: err('no such run request'),
    409: err('the run is no longer queued'),
    ...common,
  },
});

export function runQueueApi(deps: WebDeps): OpenAPIHono<AppEnv> {
  const app = apiRouter();

  app.openapi(getQueue, (c) => {
    const { running, queued } = deps.runner.queue();
    return c.json(
      { running: running ? queuedRunJson(running) : null, queued: queued.map(queuedRunJson) },
      200,
    );
  });

  app.openapi(cancelRun, (c) => {
    const { id } = c.req.valid('param');
    const result = deps.runner.cancel(id, actorOf(c));
    if (result.outcome === 'not_found') {
      throw new AppError('not_found', `no run request ${id} (requests are remembered for a while)`);
    }
    if (result.outcome === 'not_queued') {
      return apiError(
        c,
        409,
        'not_queued',
        `run request ${id} is ${result.ticket.state}: only a queued run can be cancelled`,
      ) as never;
    }
    return c.json(queuedRunJson(result.ticket), 200);
  });

  return app;
}
