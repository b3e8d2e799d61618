/**
 * /api/v1/memories: list (filters include importance and archived), search, create, read,
 * update (importance too), delete, bulk delete, archive, restore, history.
 */
import { Hono } from 'hono';

import { historyJson, memoryJson, searchResultJson } from '../../db/index.js';
import { AppError } from '../../errors.js';
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
import { jsonBody, jsonObject, paging } from './json-body.js';

export function memoryApi(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { stores } = deps;
  const keeper = deps.knowledge.memory;
  const mustGet = (id: number) => {
    const m = stores.memories.get(id);
    if (!m) throw new AppError('not_found', `memory ${id} does not exist`);
    return m;
  };

  app.get('/', (c) => {
    const query = listQuery((n) => c.req.query(n));
    const problem = query.problems[0];
    if (problem) {
      throw new AppError('usage', `${problem.field} ${problem.message}`, {
        data: { field: problem.field },
      });
    }
    const filter = toFilter(query);
    const { limit, offset } = paging(c, 200);
    return c.json({
      memories: stores.memories.list({ ...filter, limit, offset }).map(memoryJson),
      total: stores.memories.count(filter),
      limit,
      offset,
    });
  });
  // Before `/:id`: the id pattern takes digits only, but the order keeps that from mattering.
  app.get('/search', async (c) => {
    const { query, options } = parseSearchQuery(
      (n) => c.req.query(n),
      (name) => deps.knowledge.services.isKnown(name),
    );
    const answer = await deps.knowledge.search.search(query, options);
    return c.json({ query, mode: answer.mode, results: answer.results.map(searchResultJson) });
  });
  // A memory that says what an active one already says reinforces it: 200 with that memory and
  // `action: "reinforced"`; otherwise 201 (`created`, or `superseded` when it replaced one).
  app.post('/', async (c) => {
    const outcome = await keeper.add(parseMemoryCreate(await jsonBody(c)));
    return c.json(
      { ...memoryJson(outcome.memory), action: outcome.action },
      outcome.action === 'reinforced' ? 200 : 201,
    );
  });
  app.delete('/bulk', async (c) => {
    const ids = parseIds((await jsonBody(c)).ids);
    return c.json({ deleted: keeper.remove(ids) });
  });
  app.get('/:id{[0-9]+}', (c) => c.json(memoryJson(mustGet(parseId(c.req.param('id'))))));
  app.put('/:id{[0-9]+}', async (c) => {
    const id = parseId(c.req.param('id'));
    mustGet(id);
    return c.json(memoryJson(keeper.update(id, parseMemoryPatch(await jsonBody(c)))));
  });
  app.delete('/:id{[0-9]+}', (c) => {
    const id = parseId(c.req.param('id'));
    if (keeper.remove([id]) === 0) throw new AppError('not_found', `memory ${id} does not exist`);
    return c.body(null, 204);
  });
  // A body is optional: `{"reason": "..."}`.
  app.post('/:id{[0-9]+}/archive', async (c) => {
    const id = parseId(c.req.param('id'));
    mustGet(id);
    const raw = await c.req.text();
    const body = raw.trim() === '' ? {} : jsonObject(c, raw);
    return c.json(memoryJson(keeper.archive(id, parseArchiveReason(body.reason))));
  });
  app.post('/:id{[0-9]+}/restore', (c) => {
    const id = parseId(c.req.param('id'));
    mustGet(id);
    return c.json(memoryJson(keeper.restore(id)));
  });
  app.get('/:id{[0-9]+}/history', (c) => {
    const id = parseId(c.req.param('id'));
    return c.json({ history: stores.memories.history(id).map(historyJson) });
  });
  return app;
}
