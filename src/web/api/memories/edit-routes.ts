/** The routes that create, read, change and delete memories (one, or many at once). */
import type { MiddlewareHandler } from 'hono';

import { IMPORTANCES } from '../../../db/index.js';
import { CATEGORIES } from '../../../memory/index.js';
import type { AppEnv } from '../../context.js';
import { MAX_BULK_IDS } from '../../memory-input.js';
import {
  common,
  createRoute,
  err,
  flag,
  idParams,
  jsonObjectBody,
  jsonRequest,
  ok,
  text,
  withBody,
  z,
} from '../openapi-app.js';
import { MemoryCreatedSchema, MemorySchema } from '../openapi-schemas.js';

const confidence = () =>
  z
    .union([z.number(), z.string()], { error: 'must be a number from 0 to 1' })
    .nullable()
    .optional()
    .openapi({ description: 'from 0 to 1' });

export const createMemory = createRoute({
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

export const bulkDelete = createRoute({
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

export const getMemory = createRoute({
  method: 'get',
  path: '/{id}',
  summary: 'One memory',
  request: { params: idParams },
  responses: { 200: ok('the memory', MemorySchema), 404: err('no such memory'), ...common },
});

export const updateRoute = (memoryFirst: MiddlewareHandler<AppEnv>) =>
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

export const deleteMemory = createRoute({
  method: 'delete',
  path: '/{id}',
  summary: 'Delete a memory (its history is kept)',
  request: { params: idParams },
  responses: { 204: { description: 'deleted' }, 404: err('no such memory'), ...withBody },
});
