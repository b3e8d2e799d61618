/**
 * /api/v1/memories: list (filters include importance, archived and instance), search, create,
 * read, update (importance too), delete, bulk delete, archive, restore, share, unshare, history.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';

import { historyJson, IMPORTANCES, memoryJson, searchResultJson } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { CATEGORIES } from '../../memory/index.js';
import { actorOf } from '../actor.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import {
  MAX_BULK_IDS,
  parseArchiveReason,
  parseId,
  parseIds,
  parseMemoryCreate,
  parseMemoryPatch,
} from '../memory-input.js';
import { listQuery, MAX_QUERY_LENGTH, MEMORY_STATUSES, toFilter } from '../memory-query.js';
import { MAX_SEARCH_LIMIT, parseSearchQuery } from '../search-query.js';
import { paging } from './json-body.js';
import {
  apiRouter,
  common,
  createRoute,
  digitIdFirst,
  err,
  flag,
  idParams,
  jsonObjectBody,
  jsonRequest,
  oneOf,
  ok,
  optionalJsonObjectBody,
  pagingQuery,
  text,
  withBody,
  z,
} from './openapi-app.js';
import {
  MemoryCreatedSchema,
  MemoryHistorySchema,
  MemorySchema,
  SearchResultSchema,
} from './openapi-schemas.js';

const confidence = () =>
  z
    .union([z.number(), z.string()], { error: 'must be a number from 0 to 1' })
    .nullable()
    .optional()
    .openapi({ description: 'from 0 to 1' });

// In the order memory-query.ts reports problems: the first one is the answer.
const ListQuery = z.object({
  importance: oneOf('importance', IMPORTANCES),
  archived: oneOf('archived', ['yes', 'no', 'true', 'false']).openapi({
    description: 'archived by someone (true) or not (false); both when absent',
  }),
  category: oneOf('category', CATEGORIES),
  status: oneOf('status', MEMORY_STATUSES),
  service: z
    .string()
    .optional()
    .openapi({ description: '`general` for memories without a service' }),
  instance: z.string().optional().openapi({
    description:
      "one instance's memories (`cluster-a`), or `fleet` for the shared ones; every instance's when absent",
  }),
  ...pagingQuery(),
});

const listMemories = createRoute({
  method: 'get',
  path: '/',
  summary: 'Memories: active first, most confident first',
  request: { query: ListQuery },
  responses: {
    200: ok(
      'memories',
      z.object({
        memories: z.array(MemorySchema),
        total: z.number().int(),
        limit: z.number().int(),
        offset: z.number().int(),
      }),
    ),
    400: err('a bad filter, named'),
    ...common,
  },
});

// In the order search-query.ts checks them; it also checks what a schema cannot (a known service).
const SearchQuery = z.object({
  q: z
    .string()
    .refine((v) => v.trim() !== '', { error: 'q: give the words to search for' })
    .refine((v) => v.trim().length <= MAX_QUERY_LENGTH, {
      error: `q: at most ${MAX_QUERY_LENGTH} characters`,
    }),
  limit: z
    .string()
    .refine(
      (v) =>
        v.trim() === '' ||
        (/^\d{1,4}$/.test(v.trim()) && Number(v) >= 1 && Number(v) <= MAX_SEARCH_LIMIT),
      {
        error: `limit: must be a whole number from 1 to ${MAX_SEARCH_LIMIT}`,
      },
    )
    .optional()
    .openapi({ type: 'integer', minimum: 1, maximum: MAX_SEARCH_LIMIT }),
  service: z
    .string()
    .optional()
    .openapi({ description: 'a service something names, or `general` for memories without one' }),
  category: oneOf('category', CATEGORIES, ': '),
  status: oneOf('status', MEMORY_STATUSES, ': ').openapi({ default: 'active' }),
  since: z.string().optional().openapi({
    description: 'last reinforced at or after: `2024-05-01` or `2024-05-01T12:00:00Z`',
  }),
  until: z
    .string()
    .optional()
    .openapi({ description: 'last reinforced before, same forms as `since`' }),
});

const searchMemories = createRoute({
  method: 'get',
  path: '/search',
  summary:
    'Memories by meaning and by words, ranked by relevance x confidence x recency, each with why',
  request: { query: SearchQuery },
  responses: {
    200: ok(
      'results, best first',
      z.object({
        query: z.string(),
        mode: z.enum(['hybrid', 'lexical']).openapi({
          description: '`lexical` when embeddings are off, failing, or have no vectors yet',
        }),
        results: z.array(SearchResultSchema),
      }),
    ),
    400: err('a bad parameter, named in `field`'),
    ...common,
  },
});

const createMemory = createRoute({
  method: 'post',
  path: '/',
  summary: 'Create a memory (operator, tier 0)',
  description:
    'A memory that says what an active one already says reinforces it: 200 with that memory and `action: "reinforced"`; otherwise 201 (`created`, or `superseded` when it replaced one).',
  middleware: [jsonObjectBody] as const,
  request: {
    body: jsonRequest(
      z.object({
        service: text().nullable().optional(),
        category: text().openapi({ description: `one of ${CATEGORIES.join(', ')}` }),
        observation: text().openapi({ maxLength: 2000 }),
        confidence: confidence(),
        pinned: flag(),
      }),
    ),
  },
  responses: {
    201: ok('created', MemoryCreatedSchema),
    200: ok('an active memory said the same: reinforced', MemoryCreatedSchema),
    422: err('a bad field, named'),
    ...withBody,
  },
});

const bulkDelete = createRoute({
  method: 'delete',
  path: '/bulk',
  summary: 'Delete many memories in one request (history is kept)',
  middleware: [jsonObjectBody] as const,
  request: {
    body: jsonRequest(
      z.object({
        ids: z
          .union([z.array(z.union([z.number(), z.string()])), z.number(), z.string()], {
            error: 'select at least one memory',
          })
          .optional()
          .openapi({ description: `memory ids, at most ${MAX_BULK_IDS}` }),
      }),
    ),
  },
  responses: {
    200: ok('deleted', z.object({ deleted: z.number().int() })),
    422: err('bad ids'),
    ...withBody,
  },
});

const getMemory = createRoute({
  method: 'get',
  path: '/{id}',
  summary: 'One memory',
  request: { params: idParams },
  responses: { 200: ok('the memory', MemorySchema), 404: err('no such memory'), ...common },
});

const updateRoute = (memoryFirst: MiddlewareHandler<AppEnv>) =>
  createRoute({
    method: 'put',
    path: '/{id}',
    summary:
      'Edit wording or confidence (restarts the decay clock), deactivate, reactivate (needs confidence >= 0.3), pin, set importance',
    middleware: [memoryFirst, jsonObjectBody] as const,
    request: {
      params: idParams,
      body: jsonRequest(
        z.object({
          observation: text().nullable().optional(),
          confidence: confidence(),
          active: flag(),
          pinned: flag(),
          importance: text()
            .nullable()
            .optional()
            .openapi({
              description: `one of ${IMPORTANCES.join(', ')}; \`core\` pins the memory; a new level drops the reinforcement boost`,
            }),
        }),
      ),
    },
    responses: {
      200: ok('the memory after the change', MemorySchema),
      404: err('no such memory'),
      422: err('a bad field, named; nothing changed'),
      ...withBody,
    },
  });

const deleteMemory = createRoute({
  method: 'delete',
  path: '/{id}',
  summary: 'Delete a memory (its history is kept)',
  request: { params: idParams },
  responses: { 204: { description: 'deleted' }, 404: err('no such memory'), ...withBody },
});

const archiveRoute = (memoryFirst: MiddlewareHandler<AppEnv>) =>
  createRoute({
    method: 'post',
    path: '/{id}/archive',
    summary: 'Archive a memory: inactive, with the reason and date kept (core memories cannot be)',
    middleware: [memoryFirst, optionalJsonObjectBody] as const,
    request: {
      params: idParams,
      body: jsonRequest(
        z.object({ reason: text().nullable().optional().openapi({ maxLength: 2000 }) }),
        false,
      ),
    },
    responses: {
      200: ok('the archived memory', MemorySchema),
      404: err('no such memory'),
      422: err('a core memory, or a bad reason; nothing changed'),
      ...withBody,
    },
  });

const restoreMemory = createRoute({
  method: 'post',
  path: '/{id}/restore',
  summary: 'Restore an archived (or otherwise inactive) memory: active again',
  request: { params: idParams },
  responses: {
    200: ok('the restored memory', MemorySchema),
    404: err('no such memory'),
    422: err('the memory is active; nothing changed'),
    ...withBody,
  },
});

const shareRoute = (action: 'share' | 'unshare') =>
  createRoute({
    method: 'post',
    path: `/{id}/${action}`,
    summary:
      action === 'share'
        ? 'Share a memory with the whole fleet: every instance sees it (instance `fleet`)'
        : 'Stop sharing a memory: it belongs to this instance again',
    description:
      action === 'share'
        ? 'A memory already shared is answered as it is. The history records who shared it.'
        : 'A memory that is not shared is answered as it is. The history records who took it back.',
    request: { params: idParams },
    responses: {
      200: ok(`the memory after the ${action}`, MemorySchema),
      404: err('no such memory'),
      ...withBody,
    },
  });

const memoryHistory = createRoute({
  method: 'get',
  path: '/{id}/history',
  summary: 'Every change to a memory, oldest first',
  request: { params: idParams },
  responses: {
    200: ok('history', z.object({ history: z.array(MemoryHistorySchema) })),
    ...common,
  },
});

export function memoryApi(deps: WebDeps): OpenAPIHono<AppEnv> {
  const app = apiRouter({ bodyError: 'invalid_input' });
  const { stores } = deps;
  const keeper = deps.knowledge.memory;
  const mustGet = (id: number) => {
    const m = stores.memories.get(id);
    if (!m) throw new AppError('not_found', `memory ${id} does not exist`);
    return m;
  };
  // A route with a body answers 404 for a memory that does not exist, whatever the body is.
  const memoryFirst: MiddlewareHandler<AppEnv> = (c, next) =>
    digitIdFirst(c, () => {
      mustGet(parseId(c.req.param('id') ?? ''));
      return next();
    });

  app.openapi(listMemories, (c) => {
    const query = listQuery((n) => c.req.query(n));
    const problem = query.problems[0];
    if (problem) {
      throw new AppError('usage', `${problem.field} ${problem.message}`, {
        data: { field: problem.field },
      });
    }
    const filter = toFilter(query);
    const { limit, offset } = paging(c, 200);
    return c.json(
      {
        memories: stores.memories.list({ ...filter, limit, offset }).map(memoryJson),
        total: stores.memories.count(filter),
        limit,
        offset,
      },
      200,
    );
  });
  // Before `/{id}`, whose id schema takes digits only: the order keeps that from mattering.
  app.openapi(searchMemories, async (c) => {
    const { query, options } = parseSearchQuery(
      (n) => c.req.query(n),
      (name) => deps.knowledge.services.isKnown(name),
    );
    const answer = await deps.knowledge.search.search(query, options);
    return c.json({ query, mode: answer.mode, results: answer.results.map(searchResultJson) }, 200);
  });
  app.openapi(createMemory, async (c) => {
    const outcome = await keeper.add(parseMemoryCreate(c.req.valid('json')));
    const json = { ...memoryJson(outcome.memory), action: outcome.action };
    return outcome.action === 'reinforced' ? c.json(json, 200) : c.json(json, 201);
  });
  app.openapi(bulkDelete, (c) =>
    c.json({ deleted: keeper.remove(parseIds(c.req.valid('json').ids), actorOf(c)) }, 200),
  );
  app.openapi(getMemory, (c) => c.json(memoryJson(mustGet(parseId(c.req.valid('param').id))), 200));
  app.openapi(updateRoute(memoryFirst), (c) => {
    const id = parseId(c.req.valid('param').id);
    return c.json(memoryJson(keeper.update(id, parseMemoryPatch(c.req.valid('json')))), 200);
  });
  app.openapi(deleteMemory, (c) => {
    const id = parseId(c.req.valid('param').id);
    if (keeper.remove([id], actorOf(c)) === 0)
      throw new AppError('not_found', `memory ${id} does not exist`);
    return c.body(null, 204);
  });
  // A body is optional: `{"reason": "..."}`.
  app.openapi(archiveRoute(memoryFirst), (c) => {
    const id = parseId(c.req.valid('param').id);
    return c.json(
      memoryJson(keeper.archive(id, parseArchiveReason(c.req.valid('json').reason))),
      200,
    );
  });
  app.openapi(restoreMemory, (c) => {
    const id = parseId(c.req.valid('param').id);
    mustGet(id);
    return c.json(memoryJson(keeper.restore(id)), 200);
  });
  app.openapi(shareRoute('share'), (c) => {
    const id = parseId(c.req.valid('param').id);
    return c.json(memoryJson(keeper.share(id)), 200);
  });
  app.openapi(shareRoute('unshare'), (c) => {
    const id = parseId(c.req.valid('param').id);
    return c.json(memoryJson(keeper.unshare(id)), 200);
  });
  app.openapi(memoryHistory, (c) => {
    const id = parseId(c.req.valid('param').id);
    return c.json({ history: stores.memories.history(id).map(historyJson) }, 200);
  });
  return app;
}
