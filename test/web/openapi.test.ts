/** The OpenAPI document and the real routes agree, both ways. */
import { afterAll, describe, expect, it } from 'vitest';

import { OPENAPI } from '../../src/web/api/openapi.js';
import { webHarness } from '../helpers/web.js';

const h = webHarness();
afterAll(() => h.close());

function realApiRoutes(): string[] {
  const out = new Set<string>();
  for (const r of h.app.routes) {
    if (r.method === 'ALL' || !r.path.startsWith('/api/v1/')) continue;
    const path = r.path.slice('/api/v1'.length).replace(/:([a-z]+)(\{[^}]*\})?/gi, '{$1}');
    out.add(`${r.method} ${path}`);
  }
  return [...out].sort();
}

function documentedRoutes(): string[] {
  return Object.entries(OPENAPI.paths)
    .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
    .sort();
}

describe('OpenAPI document', () => {
  it('documents exactly the routes the API serves', () => {
    expect(documentedRoutes()).toEqual(realApiRoutes());
  });

  it('is served, without a credential, as JSON', async () => {
    const res = await h.request('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toContain('/memories/{id}');
  });

  it('every $ref points at a defined schema', () => {
    const refs = JSON.stringify(OPENAPI).match(/#\/components\/schemas\/[A-Za-z]+/g) ?? [];
    for (const ref of new Set(refs)) {
      expect(Object.keys(OPENAPI.components.schemas)).toContain(ref.split('/').pop());
    }
  });
});
