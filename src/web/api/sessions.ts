/**
 * /api/v1/sessions: list, one session with its children, events and chain cost, the memories it
 * was given, trigger a run, the state of a queued run, and stop the running session.
 */
import { Hono } from 'hono';

import { eventJson, sessionJson, sessionMemoryJson } from '../../db/index.js';
import { AppError } from '../../errors.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { apiError } from '../errors.js';
import { parseRunInput, ticketJson } from '../run-input.js';
import { sessionChain } from '../session-chain.js';
import { jsonBody, paging } from './json-body.js';

/** Mounted at /api/v1/sessions; errors are `{"error": {code, message, field?}}`. */
export function sessionApi(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { stores } = deps;
  // The route pattern lets only digits through.
  const mustGet = (param: string) => {
    const s = stores.sessions.get(Number(param));
    if (!s) throw new AppError('not_found', `session ${param} does not exist`);
    return s;
  };

  app.get('/', (c) => {
    const { limit, offset } = paging(c, 50, 500);
    return c.json({
      sessions: stores.sessions.list({ limit, offset }).map(sessionJson),
      total: stores.sessions.count(),
      limit,
      offset,
    });
  });

  app.post('/', async (c) => {
    const input = parseRunInput(await jsonBody(c), deps.config.runner.maxTier);
    const ticket = deps.runner.trigger({ trigger: 'api', ...input, alert: null });
    deps.log.info('run requested over the API', { request: ticket.id });
    const { request_id, state, session_ids } = ticketJson(ticket);
    return c.json({ request_id, state, session_ids }, 202);
  });

  app.get('/requests/:id', (c) => {
    const ticket = deps.runner.ticket(c.req.param('id'));
    if (!ticket) {
      throw new AppError('not_found', 'no such run request (requests are remembered for a while)');
    }
    return c.json(ticketJson(ticket));
  });

  app.get('/:id{[0-9]+}', (c) => {
    const s = mustGet(c.req.param('id'));
    return c.json({
      ...sessionJson(s),
      children: stores.sessions.children(s.id).map((x) => x.id),
      events: stores.events.list({ sessionId: s.id, limit: 1000 }).reverse().map(eventJson),
      chain_cost_usd: sessionChain(stores.sessions, s).costUsd,
    });
  });

  app.get('/:id{[0-9]+}/memories', (c) => {
    const s = mustGet(c.req.param('id'));
    return c.json({ memories: stores.surfacing.forSession(s.id).map(sessionMemoryJson) });
  });

  app.post('/:id{[0-9]+}/stop', (c) => {
    const s = mustGet(c.req.param('id'));
    if (!deps.feed.isLive(s.id) || !deps.runner.stopCurrent()) {
      return apiError(c, 409, 'not_running', `session ${s.id} is not running`);
    }
    deps.log.info('session stopped over the API', { session: s.id });
    return c.json({ stopped: true });
  });

  return app;
}
