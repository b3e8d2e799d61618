/**
 * The OpenAPI document is generated from the routes' own schemas: it documents exactly the routes
 * the API serves, both ways, it is a valid OpenAPI 3.1 document, and a request its schemas refuse
 * is refused by the route in the app's error shape.
 */
import { compileErrors, validate } from '@readme/openapi-parser';
import { afterAll, describe, expect, it } from 'vitest';

import { TOKEN, webHarness } from '../helpers/web.js';

const h = webHarness();
afterAll(() => h.close());

interface Operation {
  requestBody?: { content: Record<string, { schema: { required?: string[] } }> };
  security?: unknown[];
}
interface Document {
  openapi: string;
  info: { title: string };
  security: unknown[];
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
  paths: Record<string, Record<string, Operation>>;
}

async function served(): Promise<Document> {
  const res = await h.request('/api/v1/openapi.json');
  expect(res.status).toBe(200);
  return (await res.json()) as Document;
}

function realApiRoutes(): string[] {
  const out = new Set<string>();
  for (const r of h.app.routes) {
    if (r.method === 'ALL' || !r.path.startsWith('/api/v1/')) continue;
    const path = r.path.slice('/api/v1'.length).replace(/:([a-z_]+)(\{[^}]*\})?/gi, '{$1}');
    out.add(`${r.method} ${path}`);
  }
  return [...out].sort();
}

function documentedRoutes(doc: Document): string[] {
  return Object.entries(doc.paths)
    .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
    .sort();
}

const json = (body: unknown) => ({
  method: 'POST',
  headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});

describe('OpenAPI document', () => {
  it('documents exactly the routes the API serves, with their methods', async () => {
    const doc = await served();
    const real = realApiRoutes();
    expect(real).toContain('GET /memories/{id}');
    expect(real).toContain('POST /webhook');
    expect(documentedRoutes(doc)).toEqual(real);
  });

  it('is a valid OpenAPI 3.1 document, served without a credential', async () => {
    const doc = await served();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toBe('watchkeeper API');
    expect(doc.security).toEqual([{ bearer: [] }]);
    expect(doc.components.securitySchemes.bearer).toEqual({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/health']!.get!.security).toEqual([]);
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
  });

  it('describes a body with the schema that validates it', async () => {
    const doc = await served();
    const create = doc.paths['/memories']!.post!.requestBody!.content['application/json']!;
    expect(create.schema.required).toEqual(['category', 'observation']);
    // What the document says is required, the route requires, naming the field.
    const res = await h.request('/api/v1/memories', json({ observation: 'nas reboots slowly' }));
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({
      error: { code: 'invalid_input', message: 'category: is required', field: 'category' },
    });
  });

  it('answers a body that is not JSON with the error JSON on every route that takes JSON', async () => {
    const doc = await served();
    const routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.requestBody?.content['application/json'])
        .map(([method]) => ({ method: method.toUpperCase(), path: path.replace(/\{\w+\}/g, '1') })),
    );
    expect(routes.length).toBeGreaterThan(5);
    for (const { method, path } of routes) {
      const res = await h.request(`/api/v1${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${TOKEN}`,
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: 'a=1',
      });
      const body = (await res.json()) as { error?: { code: string } };
      // The route's own checks (an unknown id is a 404) or the JSON rule (400), never a 500.
      expect([400, 404, 415], `${method} ${path}: ${res.status}`).toContain(res.status);
      expect(body.error?.code, `${method} ${path}`).toMatch(
        /^(usage|not_found|unsupported_media_type)$/,
      );
    }
  });

  it('refuses a path the route does not take as no route, and a bad query naming it', async () => {
    const notAnId = await h.request('/api/v1/sessions/abc', {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(notAnId.status).toBe(404);
    expect(await notAnId.json()).toEqual({
      error: { code: 'not_found', message: 'no route for GET /api/v1/sessions/abc' },
    });
    const badLimit = await h.request('/api/v1/sessions?limit=many', {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(badLimit.status).toBe(400);
    expect(await badLimit.json()).toEqual({
      error: {
        code: 'usage',
        message: 'limit must be a whole number from 0 to 500',
        field: 'limit',
      },
    });
  });
});

describe('query parameters under the schemas', () => {
  it('take the first value of a parameter given twice, as the routes always did', async () => {
    const res = await h.request('/api/v1/sessions?limit=2&limit=many', {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ limit: 2, offset: 0 });
  });
});
