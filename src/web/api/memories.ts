/** /api/v1/memories: list, create, read, update, delete, bulk delete, history. */
import { Hono } from 'hono';

import { historyJson, memoryJson } from '../../db/index.js';
import { AppError } from '../../errors.js';
import type { AppEnv } from '../app.js';
import type { WebDeps } from '../deps.js';
import { parseId, parseIds, parseMemoryCreate, parseMemoryPatch } from '../memory-input.js';
import { listQuery, toFilter } from '../memory-query.js';
import { jsonBody, paging } from './json-body.js';

export function memoryApi(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { stores, keeper } = deps;
  const mustGet = (id: number) => {
    const m = stores.memories.get(id);
    if (!m) throw new AppError('not_found', `memory ${id} does not exist`);
    return m;
  };

  app.get('/', (c) => {
    const filter = toFilter(listQuery((n) => c.req.query(n)));
    const { limit, offset } = paging(c, 200);
    return c.json({
      memories: stores.memories.list({ ...filter, limit, offset }).map(memoryJson),
      total: stores.memories.count(filter),
      limit,
      offset,
    });
  });
  app.post('/', async (c) =>
    c.json(memoryJson(keeper.add(parseMemoryCreate(await jsonBody(c)))), 201),
  );
  app.delete('/bulk', async (c) => {
    const ids = parseIds((await jsonBody(c, 1024 * 1024)).ids);
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
  app.get('/:id{[0-9]+}/history', (c) => {
    const id = parseId(c.req.param('id'));
    return c.json({ history: stores.memories.history(id).map(historyJson) });
  });
  return app;
}
