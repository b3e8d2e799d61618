/** The routes of a memory's lifecycle: archive, restore, share, unshare, and its history. */
import type { MiddlewareHandler } from 'hono';

import type { AppEnv } from '../../context.js';
import {
  common,
  createRoute,
  err,
  idParams,
  jsonRequest,
  ok,
  optionalJsonObjectBody,
  text,
  withBody,
  z,
} from '../openapi-app.js';
import { MemoryHistorySchema, MemorySchema } from '../openapi-schemas.js';

export const archiveRoute = (memoryFirst: MiddlewareHandler<AppEnv>) =>
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

export const restoreMemory = createRoute({
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

export const shareRoute = (action: 'share' | 'unshare') =>
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

export const memoryHistory = createRoute({
  method: 'get',
  path: '/{id}/history',
  summary: 'Every change to a memory, oldest first',
  request: { params: idParams },
  responses: {
    200: ok('history', z.object({ history: z.array(MemoryHistorySchema) })),
    ...common,
  },
});
