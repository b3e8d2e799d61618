/**
 * The Sessions pages: the list with a 5 s refresh and "Run now", one session's detail (metadata,
 * chain, response, events, the memories it was given and the ones it made, activity log), its
 * live log over SSE, and Stop.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { type Context, Hono } from 'hono';

import type { HistoryRow, MemoryRow, Stores } from '../../db/index.js';
import { AppError, isAppError } from '../../errors.js';
import type { ScoreParts } from '../../memory/index.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { apiError } from '../errors.js';
import { renderMarkdown } from '../markdown.js';
import { isHtmx, page, partial } from '../render.js';
import { MAX_PROMPT_CHARS, parseRunInput } from '../run-input.js';
import { readMemoryToolCalls } from '../memory-tool-calls.js';
import { logFilePath, readLogPage } from '../session-log-file.js';
import { sessionChain } from '../session-chain.js';
import { otherInstance, sessionListQuery } from '../session-list.js';
import { sessionRecordView } from '../session-record.js';
import { runRows, wallDurationMs } from '../session-runs.js';
import { streamSessionLog } from '../session-stream.js';

export const PAGE_SIZE = 50;
const START_WAIT_POLLS = 20;
const START_POLL_MS = 100;

function pageNumber(value: string | undefined): number {
  const n = value && /^\d{1,6}$/.test(value) ? Number(value) : 1;
  return Math.max(1, n);
}

/** Memories the session created or reinforced, each with what the session did to it. */
async function sessionMemories(stores: Stores, sessionId: number) {
  const { history, createdIds } = await stores.sessions.memoryActivity(sessionId);
  const byMemory = new Map<number, HistoryRow[]>(createdIds.map((id) => [id, []]));
  for (const h of history) {
    const actions = byMemory.get(h.memoryId);
    if (actions) actions.push(h);
    else byMemory.set(h.memoryId, [h]);
  }
  const rows = await stores.memories.getManyAwaited([...byMemory.keys()]);
  const byId = new Map(rows.map((m) => [m.id, m]));
  return [...byMemory].map(([id, actions]) => {
    const memory: MemoryRow | null = byId.get(id) ?? null;
    const observation =
      memory?.observation ?? actions.findLast((a) => a.observation !== null)?.observation ?? '';
    return { id, memory, observation, actions };
  });
}

/**
 * The memories the session was given (its opening block, the in-session hook), each with why:
 * the injection's reason (pinned, relevant, confident) and the score's components when ranked.
 */
async function memoriesGiven(stores: Stores, sessionId: number) {
  return (await stores.surfacing.forSession(sessionId)).map((g) => {
    const detail = (typeof g.detail === 'object' && g.detail !== null ? g.detail : {}) as {
      reason?: unknown;
      why?: ScoreParts;
    };
    const reason =
      typeof detail.reason === 'string' ? detail.reason : g.via === 'hook' ? 'relevant' : null;
    return { ...g, reason, why: detail.why ?? null };
  });
}

/**
 * The first session of a just-queued run, polled for a short while without blocking; null
 * when it has not started by then (it is waiting behind another run).
 */
async function startedSession(
  deps: Pick<WebDeps, 'runner'>,
  ticketId: string,
): Promise<{ sessionId: number | null; error: string | null }> {
  for (let i = 0; ; i += 1) {
    const t = deps.runner.ticket(ticketId);
    // A ticket lists each session as soon as the session starts.
    const sessionId = t?.sessionIds[0] ?? null;
    if (!t || sessionId !== null || t.state === 'failed' || i >= START_WAIT_POLLS) {
      return { sessionId, error: t?.state === 'failed' ? (t.error ?? 'the run failed') : null };
    }
    await sleep(START_POLL_MS);
  }
}

/**
 * GET /sessions, /sessions/rows, /sessions/:id, /sessions/:id/log and /sessions/:id/stream; POST /sessions/trigger
 * and /sessions/:id/stop.
 */
export function sessionRoutes(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { stores, config } = deps;

  // The route pattern lets only digits through.
  const notFound = (param: string) => new AppError('not_found', `session ${param} does not exist`);
  const mustGetAwaited = async (param: string) => {
    const s = await stores.sessions.getAwaited(Number(param));
    if (!s) throw notFound(param);
    return s;
  };

  const rowsData = async (pageNo: number, c: Context<AppEnv>) => {
    // The filters and the count behind "51–100 of 1,234" (operator controls, session-list.ts).
    const list = await sessionListQuery(deps, c, pageNo, PAGE_SIZE);
    return {
      page: list.pager.page,
      ...list.view,
      runs: await runRows(stores, {
        limit: PAGE_SIZE,
        offset: list.pager.offset,
        filter: list.query.filter,
      }),
    };
  };

  const runForm = (extra: {
    runError?: string | null;
    runValues?: Record<string, unknown>;
    queued?: string | null;
  }) => ({
    maxTier: config.runner.maxTier,
    maxPromptChars: MAX_PROMPT_CHARS,
    runError: null,
    runValues: {},
    queued: null,
    ...extra,
  });

  app.get('/sessions', async (c) => {
    const data = await rowsData(pageNumber(c.req.query('page')), c);
    if (isHtmx(c)) return partial(c, 'partials/session-table', data);
    return page(
      c,
      'pages/sessions',
      { title: 'Sessions', nav: 'sessions' },
      {
        ...data,
        ...runForm({}),
      },
    );
  });

  app.get('/sessions/rows', async (c) =>
    partial(c, 'partials/session-rows', await rowsData(pageNumber(c.req.query('page')), c)),
  );

  app.post('/sessions/trigger', async (c) => {
    const form = await c.req.parseBody();
    let ticketId: string;
    try {
      const input = parseRunInput(form, config.runner.maxTier);
      ticketId = deps.runner.trigger({ trigger: 'manual', ...input, alert: null }).id;
    } catch (err) {
      if (!isAppError(err) || !isHtmx(c)) throw err;
      const status = err.code === 'busy' ? 409 : 422;
      return partial(
        c,
        'partials/session-run',
        runForm({ runError: err.message, runValues: form }),
        status,
      );
    }
    deps.log.info('run requested from the dashboard', { request: ticketId });
    if (!isHtmx(c)) return c.redirect('/sessions', 303);
    const { sessionId, error } = await startedSession(deps, ticketId);
    if (sessionId !== null) {
      c.header('HX-Redirect', `/sessions/${sessionId}`);
      return c.body(null, 200);
    }
    c.header('HX-Trigger', 'sessions-changed');
    return partial(
      c,
      'partials/session-run',
      error ? runForm({ runError: error }) : runForm({ queued: ticketId }),
    );
  });

  app.get('/sessions/:id{[0-9]+}', async (c) => {
    const s = await mustGetAwaited(c.req.param('id'));
    const live = deps.feed.isLive(s.id);
    const [chain, alertRepeats, events, memories, given] = await Promise.all([
      sessionChain(stores.sessions, s),
      stores.alertRepeats.getAwaited(s.id),
      stores.events.listAwaited({ sessionId: s.id, limit: 1000 }),
      sessionMemories(stores, s.id),
      memoriesGiven(stores, s.id),
    ]);
    const logFile = logFilePath(config.dataDir, s.logPath);
    return page(
      c,
      'pages/session',
      { title: `Session #${s.id}`, nav: 'sessions' },
      {
        s,
        durationMs: wallDurationMs(s),
        chain,
        ...(await sessionRecordView(stores, s, chain)),
        alertRepeats,
        responseHtml: s.response ? renderMarkdown(s.response) : null,
        events: events.reverse(),
        memories,
        given,
        live,
        // Another instance's running session is followed and stopped on that instance.
        thisInstance: stores.instance,
        // Read from the log, as far as it is written (a running session's too).
        toolCalls: await readMemoryToolCalls(logFile, { maxLineBytes: config.maxLineBytes }),
        // The last page of the log; the operator loads earlier ones (GET /sessions/:id/log).
        log: live ? null : await readLogPage(logFile, { maxLineBytes: config.maxLineBytes }),
      },
    );
  });

  // The page of the log before byte `before` (a page's start), for "Load earlier entries".
  app.get('/sessions/:id{[0-9]+}/log', async (c) => {
    const s = await mustGetAwaited(c.req.param('id'));
    const raw = c.req.query('before') ?? '';
    if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1) {
      return apiError(
        c,
        400,
        'usage',
        'before: a byte offset from the "Load earlier" link',
        'before',
      );
    }
    const log = await readLogPage(logFilePath(config.dataDir, s.logPath), {
      maxLineBytes: config.maxLineBytes,
      before: Number(raw),
    });
    if (log.missing) throw new AppError('not_found', `session ${s.id} has no log file`);
    return partial(c, 'partials/session-log-page', { s, log });
  });

  app.get('/sessions/:id{[0-9]+}/stream', async (c) =>
    streamSessionLog(c, deps, await mustGetAwaited(c.req.param('id'))),
  );

  app.post('/sessions/:id{[0-9]+}/stop', async (c) => {
    const s = await mustGetAwaited(c.req.param('id'));
    const elsewhere = otherInstance(s, stores.instance);
    if (elsewhere) return apiError(c, 409, 'other_instance', elsewhere);
    if (!deps.feed.isLive(s.id) || !deps.runner.stopCurrent()) {
      return apiError(c, 409, 'not_running', `session ${s.id} is not running`);
    }
    deps.log.info('session stopped from the dashboard', { session: s.id });
    if (!isHtmx(c)) return c.redirect(`/sessions/${s.id}`, 303);
    return partial(c, 'partials/flash', { message: 'Stopping: the session ends in a moment.' });
  });

  return app;
}
