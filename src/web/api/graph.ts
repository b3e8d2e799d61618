/**
 * /api/v1/graph: recall from the memory graph (`remember`, the same answer as `watchkeeper graph
 * remember --json`) and its counts.
 */
import { Hono } from 'hono';

import { AppError } from '../../errors.js';
import { countsJson, DEFAULT_BUDGET, rememberJson } from '../../graph/index.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { graphOf } from '../graph-instance.js';

const MAX_QUERY = 1000;

function budgetOf(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_BUDGET;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 50 || n > 100_000) {
    throw new AppError('usage', `budget must be a whole number from 50 to 100000, got "${value}"`, {
      data: { field: 'budget' },
    });
  }
  return n;
}

export function graphApi(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/remember', async (c) => {
    const q = (c.req.query('q') ?? '').trim();
    if (q === '' || q.length > MAX_QUERY) {
      throw new AppError('usage', `q must be 1 to ${MAX_QUERY} characters: what to recall`, {
        data: { field: 'q' },
      });
    }
    const graph = graphOf(deps);
    const sessions = c.req.queries('session')?.map((s) => graph.views.resolveSession(s).session);
    const answer = await graph.remember(q, {
      budget: budgetOf(c.req.query('budget')),
      ...(sessions ? { sessions } : {}),
    });
    return c.json(rememberJson(answer));
  });

  app.get('/stats', (c) => c.json(countsJson(graphOf(deps).stats())));
  return app;
}
