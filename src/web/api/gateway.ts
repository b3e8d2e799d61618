/** /api/v1/gateway/jobs: the model gateway's jobs (kind, model, tokens, cost, duration, outcome). */
import { Hono } from 'hono';

import { dayCostJson, gatewayJobJson, JOB_OUTCOMES, type JobOutcome } from '../../db/index.js';
import { AppError } from '../../errors.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { gatewayStateJson } from '../gateway-data.js';
import { paging } from './json-body.js';

export function gatewayApi(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/jobs', (c) => {
    const kind = c.req.query('kind');
    const outcome = c.req.query('outcome');
    if (kind !== undefined && !/^[a-z_-]{1,40}$/.test(kind)) {
      throw new AppError('usage', `kind: "${kind.slice(0, 40)}" is not a job kind`, {
        data: { field: 'kind' },
      });
    }
    if (outcome !== undefined && !(JOB_OUTCOMES as readonly string[]).includes(outcome)) {
      throw new AppError('usage', `outcome must be one of ${JOB_OUTCOMES.join(', ')}`, {
        data: { field: 'outcome' },
      });
    }
    const filter = {
      ...(kind ? { kind } : {}),
      ...(outcome ? { outcome: outcome as JobOutcome } : {}),
    };
    const { limit, offset } = paging(c, 100);
    const { gatewayJobs } = deps.stores;
    return c.json({
      jobs: gatewayJobs.list({ ...filter, limit, offset }).map(gatewayJobJson),
      total: gatewayJobs.count(filter),
      limit,
      offset,
      state: gatewayStateJson(deps.gateway.state()),
      per_day: gatewayJobs.perDay(deps.clock.now() - 30 * 86_400_000).map(dayCostJson),
    });
  });

  return app;
}
