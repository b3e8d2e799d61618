/**
 * The Memories page (seed 003): list with filters and a 5 s refresh, search by meaning (ranked,
 * each result with why), create, inline edit, delete, bulk delete and deactivate, reactivate,
 * pin, archive and restore, share with the fleet and unshare, promotion to core, and each memory's
 * history with its provenance. The list shows every instance's memories (filter by instance).
 */
import { type Context, Hono } from 'hono';

import { dataVersion, type MemoryRow } from '../../db/index.js';
import { AppError, isAppError } from '../../errors.js';
import { CATEGORIES } from '../../memory/index.js';
import { actorOf } from '../actor.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { cachedFor } from '../ttl-cache.js';
import { versionCache } from '../version-cache.js';
import { errorFromAppError } from '../errors.js';
import { memoriesShowInstances } from '../fleet-view.js';
import {
  parseArchiveReason,
  parseId,
  parseIds,
  parseMemoryCreate,
  parseMemoryPatch,
} from '../memory-input.js';
import { listQuery, type MemoryListQuery, toFilter } from '../memory-query.js';
import { Fragment, htmlBytes, isHtmx, page, partial, renderView } from '../render.js';
import { sparkline } from '../sparkline.js';

export const PAGE_SIZE = 50;
/** Search results shown on the page (ranked, no pages). */
export const SEARCH_RESULTS = 50;
const SERVICES_TTL_MS = 10_000;

export function memoryRoutes(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { stores } = deps;
  const keeper = deps.knowledge.memory;
  const knownServices = cachedFor(
    SERVICES_TTL_MS,
    () => deps.clock.now(),
    () => stores.memories.services(),
  );

  // The table is re-rendered only when the database changed (any process) or the filters differ:
  // every open dashboard polls it every 5 s.
  const version = dataVersion(stores.db);
  // The instance filter's values: read again only when the database changed.
  const instances = versionCache<string[]>(version, 1);
  const knownInstances = () => instances('', () => stores.memories.instances());
  // A lone sidecar's memories are all `local`: no badge, column or filter says so.
  const fleet = async () => memoriesShowInstances(deps, await knownInstances());
  const tables = versionCache<Fragment>(version, 100);
  const tableHtml = (c: Context, q: MemoryListQuery): Promise<Fragment> => {
    const key = JSON.stringify([
      q.q,
      q.service,
      q.category,
      q.status,
      q.importance,
      q.archived,
      q.instance,
      q.page,
      q.problems.length && q.raw,
    ]);
    return tables(key, async () => {
      const data = q.q === '' ? await tableData(q) : await searchData(q);
      return new Fragment(renderView(c, 'partials/memory-table', data));
    });
  };

  const tableData = async (q: MemoryListQuery) => {
    // One row more than a page tells whether there is a next page, without counting the table.
    const rows = await stores.memories.listAwaited({
      ...toFilter(q),
      limit: PAGE_SIZE + 1,
      offset: (q.page - 1) * PAGE_SIZE,
    });
    return {
      q,
      rows: rows.slice(0, PAGE_SIZE),
      hasNext: rows.length > PAGE_SIZE,
      why: null,
      fleet: await fleet(),
    };
  };

  // The filters apply to the search; the results come ranked, each with why it ranked there.
  const searchData = async (q: MemoryListQuery) => {
    const filter = toFilter(q);
    const answer = await deps.knowledge.search.search(q.q, {
      ...filter,
      limit: SEARCH_RESULTS,
    });
    // The search knows no importance, archive or instance filter: those are applied to its
    // results (it finds only what this instance sees: its own memories and the fleet's).
    const results = answer.results.filter(
      ({ memory: m }) =>
        (filter.importance === undefined || m.importance === filter.importance) &&
        (filter.archived === undefined || (m.archivedAt !== null) === filter.archived) &&
        (filter.instance === undefined || m.instance === filter.instance),
    );
    return {
      q,
      rows: results.map((r) => r.memory),
      hasNext: false,
      why: Object.fromEntries(results.map((r, i) => [r.memory.id, { rank: i + 1, ...r }])),
      // Embeddings are configured but did not answer (or nothing is embedded yet).
      lexicalOnly: answer.mode === 'lexical' && deps.knowledge.embedding.model !== null,
      fleet: await fleet(),
    };
  };
  const row = async (m: MemoryRow) => ({ rows: [m], fleet: await fleet() });

  app.get('/memories', async (c) => {
    const q = listQuery((n) => c.req.query(n));
    if (isHtmx(c)) return htmlBytes(c, (await tableHtml(c, q)).bytes);
    return page(
      c,
      'pages/memories',
      { title: 'Memories', nav: 'memories' },
      {
        q,
        table: await tableHtml(c, q),
        categories: CATEGORIES,
        services: knownServices(),
        instances: await knownInstances(),
        fleet: await fleet(),
        createError: null,
        createValues: {},
      },
    );
  });

  app.post('/memories', async (c) => {
    const form = await c.req.parseBody();
    try {
      const outcome = await keeper.add(parseMemoryCreate(form));
      const m = outcome.memory;
      deps.log.info(`memory ${outcome.action} by the operator`, { memory: m.id });
      if (!isHtmx(c)) return c.redirect('/memories', 303);
      c.header('HX-Trigger', 'memories-changed');
      return partial(c, 'partials/memory-create', {
        categories: CATEGORIES,
        createError: null,
        createValues: {},
        created: m,
        createdAction: outcome.action,
      });
    } catch (err) {
      if (!isAppError(err) || !isHtmx(c)) throw err;
      return partial(
        c,
        'partials/memory-create',
        { categories: CATEGORIES, createError: err.message, createValues: form, created: null },
        422,
      );
    }
  });

  app.get('/memories/:id{[0-9]+}/row', async (c) => {
    const m = await stores.memories.getAwaited(parseId(c.req.param('id')));
    if (!m) return c.html('', 200); // deleted meanwhile: the row disappears
    return partial(c, 'partials/memory-rows', await row(m));
  });

  app.get('/memories/:id{[0-9]+}/edit', async (c) => {
    const m = await stores.memories.getAwaited(parseId(c.req.param('id')));
    if (!m) return c.html('', 200);
    return partial(c, 'partials/memory-edit-row', { m, error: null, values: {} });
  });

  app.get('/memories/:id{[0-9]+}/history', async (c) => {
    const id = parseId(c.req.param('id'));
    const [m, history] = await Promise.all([
      stores.memories.getAwaited(id),
      stores.memories.historyAwaited(id),
    ]);
    const points = history
      .filter((h) => h.newConfidence !== null)
      .map((h) => ({ at: h.createdAt, value: h.newConfidence! }));
    return partial(c, 'partials/memory-history', {
      m,
      id,
      history,
      spark: sparkline(points),
      inactive: m ? keeper.inactiveReason(m, history) : null,
      fleet: await fleet(),
    });
  });

  /**
   * Archive and restore answer with a flash and a table refresh. The reason comes from a form
   * field or, from the dashboard's button, the prompt htmx shows (its HX-Prompt header).
   */
  app.post('/memories/:id{[0-9]+}/archive', async (c) => {
    const id = parseId(c.req.param('id'));
    const form = await c.req.parseBody();
    const m = await keeper.archive(
      id,
      parseArchiveReason(form.reason ?? c.req.header('HX-Prompt')),
    );
    deps.log.info('memory archived by the operator', { memory: m.id });
    if (!isHtmx(c)) return c.redirect('/memories', 303);
    c.header('HX-Trigger', 'memories-changed');
    return partial(c, 'partials/flash', {
      message: `Archived memory #${m.id}: ${m.archiveReason}.`,
    });
  });

  app.post('/memories/:id{[0-9]+}/restore', async (c) => {
    const m = await keeper.restore(parseId(c.req.param('id')));
    deps.log.info('memory restored by the operator', { memory: m.id });
    if (!isHtmx(c)) return c.redirect('/memories', 303);
    c.header('HX-Trigger', 'memories-changed');
    return partial(c, 'partials/flash', { message: `Restored memory #${m.id}: active again.` });
  });

  /** Share with the whole fleet, or give back to this instance: a flash and a table refresh. */
  for (const action of ['share', 'unshare'] as const) {
    app.post(`/memories/:id{[0-9]+}/${action}`, async (c) => {
      const id = parseId(c.req.param('id'));
      const m = await (action === 'share' ? keeper.share(id) : keeper.unshare(id));
      deps.log.info(`memory ${action}d by the operator`, { memory: m.id, instance: m.instance });
      if (!isHtmx(c)) return c.redirect('/memories', 303);
      c.header('HX-Trigger', 'memories-changed');
      return partial(c, 'partials/flash', {
        message:
          action === 'share'
            ? `Shared memory #${m.id} with the fleet: every instance sees it.`
            : `Memory #${m.id} is no longer shared: it belongs to ${m.instance}.`,
      });
    });
  }

  app.put('/memories/:id{[0-9]+}', async (c) => {
    const id = parseId(c.req.param('id'));
    const form = await c.req.parseBody();
    try {
      const m = await keeper.update(id, parseMemoryPatch(form));
      return partial(c, 'partials/memory-rows', await row(m));
    } catch (err) {
      if (!isAppError(err) || err.code !== 'invalid_input') throw err;
      const m = await stores.memories.getAwaited(id);
      if (!m || !isHtmx(c)) return errorFromAppError(c, err);
      // The row stays in edit mode with the operator's values and the reason; nothing changed.
      return partial(c, 'partials/memory-edit-row', { m, error: err.message, values: form }, 422);
    }
  });

  /** A bulk action over the selected ids, answered with a flash and a table refresh. */
  const bulk =
    (verb: string, apply: (ids: number[], c: Context<AppEnv>) => Promise<number>) =>
    async (c: Context<AppEnv>) => {
      const n = await apply(parseIds(await bulkIds(c)), c);
      c.header('HX-Trigger', 'memories-changed');
      return partial(c, 'partials/flash', {
        message: `${verb} ${n} ${n === 1 ? 'memory' : 'memories'}.`,
      });
    };
  app.delete(
    '/memories/bulk',
    bulk('Deleted', (ids, c) => keeper.remove(ids, actorOf(c))),
  );
  app.post(
    '/memories/bulk/deactivate',
    bulk('Deactivated', (ids) => keeper.deactivate(ids)),
  );

  app.delete('/memories/:id{[0-9]+}', async (c) => {
    const id = parseId(c.req.param('id'));
    if ((await keeper.remove([id], actorOf(c))) === 0)
      throw new AppError('not_found', `memory ${id} does not exist`);
    c.header('HX-Trigger', 'memories-changed');
    return c.html('', 200);
  });

  return app;
}

/** Ids from the query string (htmx sends DELETE parameters there) or the body. */
export async function bulkIds(c: Context): Promise<unknown> {
  const fromQuery = c.req.queries('ids');
  if (fromQuery && fromQuery.length > 0) return fromQuery;
  const type = c.req.header('Content-Type') ?? '';
  if (type.startsWith('application/json')) return ((await c.req.json()) as { ids?: unknown }).ids;
  if (
    type.startsWith('application/x-www-form-urlencoded') ||
    type.startsWith('multipart/form-data')
  ) {
    return (await c.req.parseBody({ all: true })).ids;
  }
  return undefined;
}
