/**
 * /api/v1/memories: list (filters include importance, archived and instance), search, create,
 * read, update (importance too), delete, bulk delete, archive, restore, share, unshare, history.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';

import { cutResultJson, historyJson, memoryJson, searchResultJson } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { actorOf } from '../actor.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import {
  parseArchiveReason,
  parseId,
  parseIds,
  parseMemoryCreate,
  parseMemoryPatch,
} from '../memory-input.js';
import { listQuery, toFilter } from '../memory-query.js';
import { parseSearchQuery } from '../search-query.js';
import { paging } from './json-body.js';
import { apiRouter, digitIdFirst } from './openapi-app.js';
import {
  bulkDelete,
  createMemory,
  deleteMemory,
  getMemory,
  updateRoute,
} from './memories/edit-routes.js';
import {
  archiveRoute,
  memoryHistory,
  restoreMemory,
  shareRoute,
} from './memories/lifecycle-routes.js';
import { listMemories, searchMemories } from './memories/list-routes.js';

export function memoryApi(deps: WebDeps): OpenAPIHono<AppEnv> {
  const app = apiRouter({ bodyError: 'invalid_input' });
  const { stores } = deps;
  const keeper = deps.knowledge.memory;
  const notFound = (id: number) => new AppError('not_found', `memory ${id} does not exist`);
  // A route with a body answers 404 for a memory that does not exist, whatever the body is.
  const memoryFirst: MiddlewareHandler<AppEnv> = (c, next) =>
    digitIdFirst(c, async () => {
      const id = parseId(c.req.param('id') ?? '');
      if (!(await stores.memories.getAwaited(id))) throw notFound(id);
      await next();
    });

  app.openapi(listMemories, async (c) => {
    const query = listQuery((n) => c.req.query(n));
    const problem = query.problems[0];
    if (problem) {
      throw new AppError('usage', `${problem.field} ${problem.message}`, {
        data: { field: problem.field },
      });
    }
    const filter = toFilter(query);
    const { limit, offset } = paging(c, 200);
    const [memories, total] = await Promise.all([
      stores.memories.listAwaited({ ...filter, limit, offset }),
      stores.memories.count(filter),
    ]);
    return c.json(
      {
        memories: memories.map(memoryJson),
        total,
        limit,
        offset,
      },
      200,
    );
  });
  // Before `/{id}`, whose id schema takes digits only: the order keeps that from mattering.
  app.openapi(searchMemories, async (c) => {
    const { query, options } = await parseSearchQuery(
      (n) => c.req.query(n),
      (name) => deps.knowledge.services.isKnown(name),
    );
    const answer = await deps.knowledge.search.search(query, options);
    return c.json(
      {
        query,
        mode: answer.mode,
        results: answer.results.map(searchResultJson),
        ...(answer.cut ? { cut: answer.cut.map(cutResultJson) } : {}),
      },
      200,
    );
  });
  app.openapi(createMemory, async (c) => {
    const outcome = await keeper.add(parseMemoryCreate(c.req.valid('json')));
    const json = { ...memoryJson(outcome.memory), action: outcome.action };
    return outcome.action === 'reinforced' ? c.json(json, 200) : c.json(json, 201);
  });
  app.openapi(bulkDelete, async (c) =>
    c.json({ deleted: await keeper.remove(parseIds(c.req.valid('json').ids), actorOf(c)) }, 200),
  );
  app.openapi(getMemory, async (c) => {
    const id = parseId(c.req.valid('param').id);
    const m = await stores.memories.getAwaited(id);
    if (!m) throw notFound(id);
    return c.json(memoryJson(m), 200);
  });
  app.openapi(updateRoute(memoryFirst), async (c) => {
    const id = parseId(c.req.valid('param').id);
    const m = await keeper.update(id, parseMemoryPatch(c.req.valid('json')));
    return c.json(memoryJson(m), 200);
  });
  app.openapi(deleteMemory, async (c) => {
    const id = parseId(c.req.valid('param').id);
    if ((await keeper.remove([id], actorOf(c))) === 0)
      throw new AppError('not_found', `memory ${id} does not exist`);
    return c.body(null, 204);
  });
  // A body is optional: `{"reason": "..."}`.
  app.openapi(archiveRoute(memoryFirst), async (c) => {
    const id = parseId(c.req.valid('param').id);
    const m = await keeper.archive(id, parseArchiveReason(c.req.valid('json').reason));
    return c.json(memoryJson(m), 200);
  });
  app.openapi(restoreMemory, async (c) => {
    const id = parseId(c.req.valid('param').id);
    return c.json(memoryJson(await keeper.restore(id)), 200);
  });
  app.openapi(shareRoute('share'), async (c) => {
    const id = parseId(c.req.valid('param').id);
    return c.json(memoryJson(await keeper.share(id)), 200);
  });
  app.openapi(shareRoute('unshare'), async (c) => {
    const id = parseId(c.req.valid('param').id);
    return c.json(memoryJson(await keeper.unshare(id)), 200);
  });
  app.openapi(memoryHistory, async (c) => {
    const id = parseId(c.req.valid('param').id);
    const history = await stores.memories.historyAwaited(id);
    return c.json({ history: history.map(historyJson) }, 200);
  });
  return app;
}
