/**
 * A body hono's own validators cannot read (a route whose author forgot `jsonObjectBody`) is the
 * client's mistake: a 400 in the app's error JSON naming the body, never a 500.
 */
import { Hono } from 'hono';
import { validator } from 'hono/validator';
import { describe, expect, it } from 'vitest';

import { createLogger } from '../../src/log.js';
import type { AppEnv } from '../../src/web/context.js';
import { onError } from '../../src/web/errors.js';
import { apiRouter, createRoute, jsonRequest, ok, z } from '../../src/web/api/openapi-app.js';

function smallApp() {
  const logged: string[] = [];
  const router = apiRouter();
  // No jsonObjectBody: the zod-openapi validator parses the body itself.
  router.openapi(
    createRoute({
      method: 'post',
      path: '/things',
      request: { body: jsonRequest(z.object({ name: z.string() })) },
      responses: { 200: ok('made', z.object({ name: z.string() })) },
    }),
    (c) => c.json({ name: c.req.valid('json').name }, 200),
  );
  router.post(
    '/forms',
    validator('form', (v) => v),
    (c) => c.json({ ok: true }),
  );
  const app = new Hono<AppEnv>();
  app.onError(onError(createLogger('error', (l) => logged.push(l))));
  app.route('/api/v1', router);
  return { app, logged };
}

const post = (app: Hono<AppEnv>, path: string, type: string, body: string) =>
  app.request(path, { method: 'POST', headers: { 'Content-Type': type }, body });

describe("hono's validator errors", () => {
  it('answers a JSON body that is not JSON with a 400 naming the body', async () => {
    const { app, logged } = smallApp();
    const res = await post(app, '/api/v1/things', 'application/json', '{"name": "a",');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { code: 'usage', message: 'body: is not valid JSON', field: 'body' },
    });
    // Nothing for the operator to look into: no "request failed" in the log.
    expect(logged).toEqual([]);

    const good = await post(app, '/api/v1/things', 'application/json', '{"name": "a"}');
    expect(good.status).toBe(200);
    expect(await good.json()).toEqual({ name: 'a' });
  });

  it('answers form data that cannot be read with a 400 naming the body', async () => {
    const { app, logged } = smallApp();
    const res = await post(
      app,
      '/api/v1/forms',
      'multipart/form-data; boundary=nothing-here',
      'not a multipart body',
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { code: 'usage', message: 'body: is not valid form data', field: 'body' },
    });
    expect(logged).toEqual([]);
  });
});
