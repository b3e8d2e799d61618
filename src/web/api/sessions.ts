/**
 * /api/v1/sessions: list, one session with its children, events and chain cost, the memories it
 * was given, trigger a run (also at Claude Ops' /trigger), the state of a queued run, and stop the running session.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';

import { eventJson, type SessionRow, sessionJson, sessionMemoryJson } from '../../db/index.js';
import { AppError } from '../../errors.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { MAX_PROMPT_CHARS, parseRunInput, ticketJson } from '../run-input.js';
import { sessionChain } from '../session-chain.js';
import { otherInstance } from '../session-list.js';
import { parseSessionQuery } from '../session-query.js';
import { sessionRecordJson, sessionRecordView } from '../session-record.js';
import { paging } from './json-body.js';
import {
  apiRouter,
  common,
  createRoute,
  err,
  errorJson,
  idParams,
  jsonObjectBody,
  jsonRequest,
  ok,
  pagingQuery,
  withBody,
  z,
} from './openapi-app.js';
import {
  RunRequestSchema,
  SessionDetailSchema,
  SessionMemorySchema,
  SessionSchema,
} from './openapi-schemas.js';

const listSessions = createRoute({
  method: 'get',
  path: '/',
  summary: 'Sessions, newest first, filtered by status, trigger, tier and start time',
  request: {
    // Checked by session-query.ts (shared with the dashboard's filters), which names the field.
    query: z.object({
      status: z.string().optional().openapi({ description: 'a session status' }),
      trigger: z.string().optional().openapi({ description: 'a trigger' }),
      tier: z.string().optional().openapi({ description: '1, 2 or 3' }),
      range: z.string().optional().openapi({ description: '1h, 24h, 7d or 30d back from now' }),
      from: z
        .string()
        .optional()
        .openapi({ description: 'started at or after (ISO; UTC without a zone)' }),
      to: z.string().optional().openapi({ description: 'started before' }),
      instance: z
        .string()
        .optional()
        .openapi({ description: 'only the sessions this instance (WATCHKEEPER_INSTANCE) ran' }),
      ...pagingQuery(500),
    }),
  },
  responses: {
    200: ok(
      'sessions',
      z.object({
        sessions: z.array(SessionSchema),
        total: z.number().int(),
        limit: z.number().int(),
        offset: z.number().int(),
      }),
    ),
    400: err('a bad limit or offset, named'),
    ...common,
  },
});

const TIERS = { error: 'must be 1, 2 or 3' };
// The tier's text form comes from the dashboard's form rules (run-input.ts), shared with it.
const RunBody = z.object({
  prompt: z
    .string({ error: 'must be text' })
    .nullable()
    .optional()
    .openapi({
      description: `at most ${MAX_PROMPT_CHARS} characters once trimmed; blank for the tier's prompt file`,
    }),
  tier: z
    .union(
      [
        z.number().int(TIERS).min(1, TIERS).max(3, TIERS),
        z.string().regex(/^(\s*[123]\s*)?$/, TIERS),
      ],
      TIERS,
    )
    .nullable()
    .optional()
    .openapi({ description: 'the start tier, 1 by default; at most MAX_TIER' }),
  start_tier: z
    .union([z.number().int(TIERS).min(1, TIERS).max(3, TIERS), z.string()], TIERS)
    .nullable()
    .optional()
    .openapi({ description: "`tier` under the Claude Ops API's name" }),
});

/** Queueing a run: `POST /api/v1/sessions`, and the same under Claude Ops' path. */
const runRoute = (path: '/' | '/trigger', summary: string) =>
  createRoute({
    method: 'post',
    path,
    summary,
    middleware: [jsonObjectBody] as const,
    request: { body: jsonRequest(RunBody) },
    responses: {
      202: ok('queued', RunRequestSchema),
      409: err('the run queue is full'),
      422: err('a bad field, named'),
      ...withBody,
    },
  });

const triggerRun = runRoute('/', 'Queue a run (a chain starting at `tier`)');
// Claude Ops' route: the same body and the same answer.
const triggerRunClaudeOps = runRoute(
  '/trigger',
  'Queue a run, as POST /api/v1/sessions (the Claude Ops route)',
);

const getRequest = createRoute({
  method: 'get',
  path: '/requests/{id}',
  summary: 'A queued run and the sessions it started',
  request: { params: z.object({ id: z.string() }) },
  responses: {
    200: ok('the run', RunRequestSchema),
    404: err('unknown request'),
    ...common,
  },
});

const getSession = createRoute({
  method: 'get',
  path: '/{id}',
  summary: 'One session with its children, events and chain cost',
  request: { params: idParams },
  responses: {
    200: ok('the session', SessionDetailSchema),
    404: err('no such session'),
    ...common,
  },
});

const sessionMemories = createRoute({
  method: 'get',
  path: '/{id}/memories',
  summary:
    'The memories the session was given: in its opening block (`context`) or after a tool call (`hook`)',
  request: { params: idParams },
  responses: {
    200: ok('memories given', z.object({ memories: z.array(SessionMemorySchema) })),
    404: err('no such session'),
    ...common,
  },
});

const stopSession = createRoute({
  method: 'post',
  path: '/{id}/stop',
  summary: 'Stop the session (SIGTERM to its process group)',
  request: { params: idParams },
  responses: {
    200: ok('stopped', z.object({ stopped: z.literal(true) })),
    404: err('no such session'),
    409: err('the session is not running, or runs on another instance'),
    ...withBody,
  },
});

/** Mounted at /api/v1/sessions; errors are `{"error": {code, message, field?}}`. */
export function sessionApi(deps: WebDeps): OpenAPIHono<AppEnv> {
  const app = apiRouter({ bodyError: 'invalid_input' });
  const { stores } = deps;
  // The id schema lets only digits through.
  const mustExist = (s: SessionRow | null, param: string) => {
    if (!s) throw new AppError('not_found', `session ${param} does not exist`);
    return s;
  };

  app.openapi(listSessions, async (c) => {
    const { filter, problems } = parseSessionQuery((n) => c.req.query(n), deps.clock.now());
    const problem = problems[0];
    if (problem) {
      throw new AppError('usage', `${problem.field} ${problem.message}`, {
        data: { field: problem.field },
      });
    }
    const { limit, offset } = paging(c, 50, 500);
    const [sessions, total] = await Promise.all([
      stores.sessions.listAwaited({ limit, offset, filter }),
      stores.sessions.count(filter),
    ]);
    return c.json(
      {
        sessions: sessions.map(sessionJson),
        total,
        limit,
        offset,
      },
      200,
    );
  });

  const queueRun = (body: Record<string, unknown>) => {
    const input = parseRunInput(body, deps.config.runner.maxTier);
    const ticket = deps.runner.trigger({ trigger: 'api', ...input, alert: null });
    deps.log.info('run requested over the API', { request: ticket.id });
    const { request_id, state, session_ids } = ticketJson(ticket);
    return { request_id, state, session_ids };
  };
  app.openapi(triggerRun, (c) => c.json(queueRun(c.req.valid('json')), 202));
  app.openapi(triggerRunClaudeOps, (c) => c.json(queueRun(c.req.valid('json')), 202));

  app.openapi(getRequest, (c) => {
    const ticket = deps.runner.ticket(c.req.valid('param').id);
    if (!ticket) {
      throw new AppError('not_found', 'no such run request (requests are remembered for a while)');
    }
    return c.json(ticketJson(ticket), 200);
  });

  // Polled while a session runs: every read awaited, those that can be at once.
  app.openapi(getSession, async (c) => {
    const param = c.req.valid('param').id;
    const s = mustExist(await stores.sessions.getAwaited(Number(param)), param);
    const [chain, children, events, repeats] = await Promise.all([
      sessionChain(stores.sessions, s),
      stores.sessions.childrenAwaited(s.id),
      stores.events.listAwaited({ sessionId: s.id, limit: 1000 }),
      stores.alertRepeats.getAwaited(s.id),
    ]);
    return c.json(
      {
        ...sessionJson(s),
        children: children.map((x) => x.id),
        events: events.reverse().map(eventJson),
        chain_cost_usd: chain.costUsd,
        alert_repeats: repeats,
        // What it got and did: summary, system prompt, tokens, services checked.
        ...sessionRecordJson(await sessionRecordView(stores, s, chain)),
      },
      200,
    );
  });

  app.openapi(sessionMemories, async (c) => {
    const param = c.req.valid('param').id;
    const s = mustExist(await stores.sessions.getAwaited(Number(param)), param);
    const given = await stores.surfacing.forSession(s.id);
    return c.json({ memories: given.map(sessionMemoryJson) }, 200);
  });

  app.openapi(stopSession, async (c) => {
    const param = c.req.valid('param').id;
    const s = mustExist(await stores.sessions.getAwaited(Number(param)), param);
    const elsewhere = otherInstance(s, stores.instance);
    if (elsewhere) return errorJson(c, 409, 'other_instance', elsewhere);
    if (!deps.feed.isLive(s.id) || !deps.runner.stopCurrent()) {
      return errorJson(c, 409, 'not_running', `session ${s.id} is not running`);
    }
    deps.log.info('session stopped over the API', { session: s.id });
    return c.json({ stopped: true as const }, 200);
  });

  return app;
}
