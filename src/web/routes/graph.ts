/**
 * The Memory graph pages (seed 004): the indexed conversations, the latest ideas (filtered by
 * intent), the evolution chains (a decision and what superseded it), the entities most named and
 * a recall box; one conversation's topic tree with its ideas; one idea with its relations; one
 * entity with every idea that names it. And, on a watchkeeper session's page, its topics and
 * ideas (its log is indexed on the first view after it ended).
 */
import { Hono } from 'hono';

import { INTENTS, type Intent } from '../../db/graph/graph.js';
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
import { graphOf, sessionLogFile } from '../graph-instance.js';
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
    const { rows, sources } = graph.stores;
    const intent = intentOf(c.req.query('intent'));
    const q = (c.req.query('q') ?? '').trim().slice(0, MAX_QUERY);
    const answer: RememberAnswer | null = q
      ? await graph.remember(q, { budget: DEFAULT_BUDGET })
      : null;
    // More than are shown: a sentence every run repeats is shown once.
    const latest = graph.stores.search.latestIdeas(
      intent ? { intents: [intent] } : {},
      LATEST * LATEST_READ,
    );
    const chains = rows.recentRelations('supersedes', 10);
    const chainIdeas = new Map(
      rows.ideas(chains.flatMap((r) => [r.fromId, r.toId])).map((i) => [i.id, i]),
    );
    return page(
      c,
      'pages/graph',
      { title: 'Memory graph', nav: 'graph' },
      {
        counts: await graph.stats(),
        sessions: sources.list({ limit: 50 }),
        intents: INTENTS,
        intent,
        latest: onceEach(
          graph.stores,
          rows.ideas(latest).sort((a, b) => b.createdAt - a.createdAt || b.id - a.id),
          LATEST,
        ),
        chains: chains
          .map((r) => ({
            relation: r,
            newer: chainIdeas.get(r.fromId),
            older: chainIdeas.get(r.toId),
          }))
          .filter((x) => x.newer && x.older),
        entities: topEntities(graph.stores, 30),
        q,
        answer,
        label: sessionLabel,
        viaText,
      },
    );
  });

  app.get('/graph/sessions/:session{.+}', (c) => {
    const graph = graphOf(deps);
    const intent = intentOf(c.req.query('intent'));
    const view = graph.views.session(c.req.param('session'), intent ? [intent] : undefined);
    return page(
      c,
      'pages/graph-session',
      { title: `Conversation ${view.session.session.slice(0, 8)}`, nav: 'graph' },
      { view, intents: INTENTS, intent },
    );
  });

  app.get('/graph/ideas/:id', (c) => {
    const v = graphOf(deps).views.idea(idOf(c.req.param('id'), 'idea'));
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

  app.get('/graph/entities/:id', (c) => {
    const v = graphOf(deps).views.entity(idOf(c.req.param('id'), 'entity'));
    return page(c, 'pages/graph-entity', { title: `Entity ${v.entity.name}`, nav: 'graph' }, { v });
  });

  // A watchkeeper session's topics and ideas, for its page (loaded by htmx).
  app.get('/graph/watchkeeper/:id', async (c) => {
    const id = idOf(c.req.param('id'), 'session');
    const session = deps.stores.sessions.get(id);
    if (!session)
      throw new AppError('not_found', `no session with id ${id}`, { data: { field: 'id' } });
    const graph = graphOf(deps);
    let error: string | null = null;
    const log = sessionLogFile(deps, id);
    // Serve queues every log when its session ends; this reads one that ended before that (or
    // under `run`), and costs a stat when it is read already.
    if (log && session.status !== 'running') {
      try {
        await graph.index(log);
      } catch (err) {
        error = (err as Error).message;
        deps.log.warn('graph: could not index a session log', { session: id, error: err as Error });
      }
    }
    const views = graph.stores.sources
      .ofWatchkeeperSession(id)
      .map((s) => graph.views.session(s.session));
    return partial(c, 'partials/graph-topics', {
      views,
      running: session.status === 'running',
      error,
    });
  });

  return app;
}
