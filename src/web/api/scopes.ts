/**
 * /api/v1/scopes: memory scopes and whether each is shared with the ops sessions (whose memory
 * block then includes its memories). `PUT /scopes/{name}` with `{"shared_with_ops": true}`.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';

import { scopeJson } from '../../db/index.js';
import { parseScope } from '../../conversations/index.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import {
  apiRouter,
  common,
  createRoute,
  err,
  jsonObjectBody,
  jsonRequest,
  ok,
  withBody,
  z,
} from './openapi-app.js';
import { ScopeSchema } from './openapi-schemas-conversations.js';

const listScopes = createRoute({
  method: 'get',
  path: '/',
  summary: 'Memory scopes and whether each is shared with the ops sessions',
  responses: { 200: ok('scopes', z.object({ scopes: z.array(ScopeSchema) })), ...common },
});

// The name is checked first (conversations/input.ts), before the body, as it always was.
const nameFirst: MiddlewareHandler<AppEnv> = async (c, next) => {
  parseScope(c.req.param('name'), 'name');
  await next();
};

const shareScope = createRoute({
  method: 'put',
  path: '/{name}',
  summary:
    'Share a scope with the ops sessions (their memory block includes its memories), or stop',
  middleware: [nameFirst, jsonObjectBody] as const,
  request: {
    params: z.object({
      name: z.string().openapi({ description: 'a scope name other than `ops`' }),
    }),
    body: jsonRequest(
      z.object({
        shared_with_ops: z.boolean({ error: 'shared_with_ops must be true or false' }),
      }),
    ),
  },
  responses: {
    200: ok('the scope', ScopeSchema),
    ...withBody,
    400: err('a bad name (or `ops`), not a JSON object, or a missing shared_with_ops'),
  },
});

export function scopeApi(deps: WebDeps): OpenAPIHono<AppEnv> {
  const app = apiRouter();

  app.openapi(listScopes, async (c) =>
    c.json({ scopes: (await deps.stores.scopes.list()).map(scopeJson) }, 200),
  );

  app.openapi(shareScope, async (c) => {
    const name = parseScope(c.req.valid('param').name, 'name');
    const shared = c.req.valid('json').shared_with_ops;
    await deps.conversations.share(name, shared);
    deps.log.info('memory scope sharing changed over the API', { scope: name, shared });
    const row = (await deps.stores.scopes.list()).find((s) => s.name === name)!;
    return c.json(scopeJson(row), 200);
  });

  return app;
}
