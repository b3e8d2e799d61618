/**
 * /api/v1/scopes: memory scopes and whether each is shared with the ops sessions (whose memory
 * block then includes its memories). `PUT /scopes/{name}` with `{"shared_with_ops": true}`.
 */
import { Hono } from 'hono';

import { scopeJson } from '../../db/index.js';
import { parseScope } from '../../conversations/index.js';
import { AppError } from '../../errors.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { jsonBody } from './json-body.js';

export function scopeApi(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/', (c) => c.json({ scopes: deps.stores.scopes.list().map(scopeJson) }));

  app.put('/:name', async (c) => {
    const name = parseScope(c.req.param('name'), 'name');
    const body = await jsonBody(c);
    if (typeof body.shared_with_ops !== 'boolean') {
      throw new AppError('usage', 'shared_with_ops must be true or false', {
        data: { field: 'shared_with_ops' },
      });
    }
    deps.conversations.share(name, body.shared_with_ops);
    deps.log.info('memory scope sharing changed over the API', {
      scope: name,
      shared: body.shared_with_ops,
    });
    const row = deps.stores.scopes.list().find((s) => s.name === name)!;
    return c.json(scopeJson(row));
  });

  return app;
}
