/** /api/v1/gateway/jobs: the model gateway's jobs (kind, model, tokens, cost, duration, outcome). */
import type { OpenAPIHono } from '@hono/zod-openapi';

import { dayCostJson, gatewayJobJson, JOB_OUTCOMES, type JobOutcome } from '../../db/index.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { gatewayStateJson } from '../gateway-data.js';
import { paging } from './json-body.js';
import { apiRouter, common, createRoute, err, ok, pagingQuery, z } from './openapi-app.js';
import {
  DayCostSchema,
  GatewayJobSchema,
  GatewayStateSchema,
} from './openapi-schemas-conversations.js';

const JobQuery = z.object({
  kind: z
    .string()
    .refine((v) => /^[a-z_-]{1,40}$/.test(v), {
      error: (issue) => `kind: "${String(issue.input).slice(0, 40)}" is not a job kind`,
    })
    .optional()
    .openapi({ description: 'gate, extract, summary, ...' }),
  outcome: z
    .enum(JOB_OUTCOMES, { error: `outcome must be one of ${JOB_OUTCOMES.join(', ')}` })
    .optional(),
  ...pagingQuery(),
});

const listJobs = createRoute({
  method: 'get',
  path: '/jobs',
  summary: "The model gateway's jobs, newest first, with its state and the cost per UTC day",
  request: { query: JobQuery },
  responses: {
    200: ok(
      'jobs',
      z.object({
        jobs: z.array(GatewayJobSchema),
        total: z.number().int(),
        limit: z.number().int(),
        offset: z.number().int(),
        state: GatewayStateSchema,
        per_day: z.array(DayCostSchema),
      }),
    ),
    400: err('a bad filter'),
    ...common,
  },
});

export function gatewayApi(deps: WebDeps): OpenAPIHono<AppEnv> {
  const app = apiRouter();

  app.openapi(listJobs, async (c) => {
    const { kind, outcome } = c.req.valid('query');
    const filter = {
      ...(kind ? { kind } : {}),
      ...(outcome ? { outcome: outcome as JobOutcome } : {}),
    };
    const { limit, offset } = paging(c, 100);
    const { gatewayJobs } = deps.stores;
    const [jobs, total, state, days] = await Promise.all([
      gatewayJobs.list({ ...filter, limit, offset }),
      gatewayJobs.count(filter),
      deps.gateway.state(),
      gatewayJobs.perDay(deps.clock.now() - 30 * 86_400_000),
    ]);
    return c.json(
      {
        jobs: jobs.map(gatewayJobJson),
        total,
        limit,
        offset,
        state: gatewayStateJson(state),
        per_day: days.map(dayCostJson),
      },
      200,
    );
  });

  return app;
}
