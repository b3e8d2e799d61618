/**
 * The Memory graph pages (seed 004): the indexed conversations, the latest ideas (filtered by
 * intent), the evolution chains (a decision and what superseded it), the entities most named and
 * a recall box; one conversation's topic tree with its ideas; one idea with its relations; one
 * entity with every idea that names it. And, on a watchkeeper session's page, its topics and
 * ideas (its log is indexed on the first view after it ended; on PostgreSQL, queued for serve's
 * indexing, the part asking again until it is read).
 */
import { resolve } from 'node:path';

import { Hono } from 'hono';

import { INTENTS, type Intent } from '../../db/graph/graph.js';
import { engineOf } from '../../db/index.js';
import { AppError } from '../../errors.js';
import {
  DEFAULT_BUDGET,
  type IdeaView,
  onceEach,
  type RememberAnswer,
  sessionLabel,
  topEntities,
  viaText,
} from '../../graph/index.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { graphOf, indexQueueOf, sessionLogFile } from '../graph-instance.js';
import { page, partial } from '../render.js';

const MAX_QUERY = 1000;
/** Latest ideas shown, and how many times as many are read to fill them once repeats fold. */
const LATEST = 30;
const LATEST_READ = 10;

function intentOf(value: string | undefined): Intent | null {
  if (value === undefined || value === '') return null;
  if (!(INTENTS as readonly string[]).includes(value)) {
    throw new AppError('usage', `intent must be one of ${INTENTS.join(', ')}, got "${value}"`, {
      data: { field: 'intent' },
    });
  }
  return value as Intent;
}

function idOf(value: string, what: string): number {
  if (!/^\d{1,15}$/.test(value)) {
    throw new AppError('not_found', `no ${what} with id ${value}`, { data: { field: 'id' } });
  }
  return Number(value);
}

export function graphRoutes(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/graph', async (c) => {
    const graph = graphOf(deps);
    const { rows, sources, search } = graph.stores;
    const intent = intentOf(c.req.query('intent'));
    const q = (c.req.query('q') ?? '').trim().slice(0, MAX_QUERY);
    // What the page shows, read side by side.
    const [answer, latest, chains, counts, sessions, entities] = await Promise.all([
      q ? graph.remember(q, { budget: DEFAULT_BUDGET }) : (null as RememberAnswer | null),
      // More than are shown: a sentence every run repeats is shown once.
      search.latestIdeas(intent ? { intents: [intent] } : {}, LATEST * LATEST_READ),
      rows.recentRelations('supersedes', 10),
      graph.stats(),
      sources.list({ limit: 50 }),
      topEntities(graph.stores, 30),
    ]);
    const [latestIdeas, chainIdeas] = await Promise.all([
      rows.ideasAwaited(latest),
      rows
        .ideasAwaited(chains.flatMap((r) => [r.fromId, r.toId]))
        .then((list) => new Map(list.map((i) => [i.id, i]))),
    ]);
    return page(
      c,
      'pages/graph',
      { title: 'Memory graph', nav: 'graph' },
      {
        counts,
        sessions,
        intents: INTENTS,
        intent,
        latest: await onceEach(
          graph.stores,
          latestIdeas.sort((a, b) => b.createdAt - a.createdAt || b.id - a.id),
          LATEST,
        ),
        chains: chains
          .map((r) => ({
            relation: r,
            newer: chainIdeas.get(r.fromId),
            older: chainIdeas.get(r.toId),
          }))
          .filter((x) => x.newer && x.older),
        entities,
        q,
        answer,
        label: sessionLabel,
        viaText,
      },
    );
  });

  app.get('/graph/sessions/:session{.+}', async (c) => {
    const graph = graphOf(deps);
    const intent = intentOf(c.req.query('intent'));
    const view = await graph.views.session(c.req.param('session'), intent ? [intent] : undefined);
    return page(
      c,
      'pages/graph-session',
      { title: `Conversation ${view.session.session.slice(0, 8)}`, nav: 'graph' },
      { view, intents: INTENTS, intent },
    );
  });

  app.get('/graph/ideas/:id', async (c) => {
    const v = await graphOf(deps).views.idea(idOf(c.req.param('id'), 'idea'));
    // How each related idea stands to this one ("superseded by #12", "answers #7").
    const relationText = (r: IdeaView['related'][number]) =>
      viaText({
        from: v.idea.id,
        relation: r.relation.type,
        direction: r.direction === 'out' ? 'in' : 'out',
      });
    return page(
      c,
      'pages/graph-idea',
      { title: `Idea #${v.idea.id}`, nav: 'graph' },
      { v, relationText },
    );
  });

  app.get('/graph/entities/:id', async (c) => {
    const v = await graphOf(deps).views.entity(idOf(c.req.param('id'), 'entity'));
    return page(c, 'pages/graph-entity', { title: `Entity ${v.entity.name}`, nav: 'graph' }, { v });
  });

  // A watchkeeper session's topics and ideas, for its page (loaded by htmx).
  app.get('/graph/watchkeeper/:id', async (c) => {
    const id = idOf(c.req.param('id'), 'session');
    const session = await deps.stores.sessions.getAwaited(id);
    if (!session)
      throw new AppError('not_found', `no session with id ${id}`, { data: { field: 'id' } });
    const graph = graphOf(deps);
    let error: string | null = null;
    let indexing = false;
    const log = sessionLogFile(deps, session);
    // Serve queues every log when its session ends; this reads one that ended before that (or
    // under `run`), and costs a stat when it is read already. On PostgreSQL indexing would hold
    // the event loop for each of its many statements: the log is queued instead (serve indexes
    // it in a child process), and the part asks again until it is read.
    if (log && session.status !== 'running') {
      try {
        if (await graph.indexed(log)) {
          // Nothing new in it.
        } else if (engineOf(deps.stores.db) === 'postgres') {
          indexQueueOf(deps).enqueue(resolve(log));
          indexing = true;
        } else await graph.index(log);
      } catch (err) {
        error = (err as Error).message;
        deps.log.warn('graph: could not index a session log', { session: id, error: err as Error });
      }
    }
    const views = await Promise.all(
      (await graph.stores.sources.ofWatchkeeperSession(id)).map((s) => graph.views.sessionOf(s)),
    );
    return partial(c, 'partials/graph-topics', {
      id,
      views,
      running: session.status === 'running',
      indexing,
      error,
    });
  });

  return app;
}
