/**
 * Every mutating route, found from the app's own route table: without a credential it answers
 * 401, with a session but no (or a wrong) CSRF token 403, from another site 403, and in every
 * case the database is unchanged.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { CSP } from '../../src/web/security.js';
import { TOKEN, webHarness, type WebHarness } from '../helpers/web.js';
import { seedMemory } from '../helpers/db.js';

let h: WebHarness;
let auth: { cookie: string; csrf: string };
let memoryId: number;
let sessionId: number;
beforeEach(async () => {
  h = webHarness();
  auth = await h.login();
  memoryId = seedMemory(h, {
    service: 'jellyfin',
    category: 'timing',
    observation: 'Takes 60s to start',
  }).id;
  sessionId = h.stores.sessions.start({ trigger: 'manual', tier: 1, startedAt: h.clock.now() });
  h.knowledge.services.describe('jellyfin', 'the media server', 'operator');
});
afterEach(() => h.close());

function mutatingRoutes(): { method: string; path: string }[] {
  const seen = new Set<string>();
  const out: { method: string; path: string }[] = [];
  for (const r of h.app.routes) {
    if (['GET', 'HEAD', 'OPTIONS', 'ALL'].includes(r.method) || r.path.includes('*')) continue;
    const path = r.path
      .replace(/\/memories\/:id(\{[^}]*\})?/g, `/memories/${memoryId}`)
      .replace(/\/sessions\/:id(\{[^}]*\})?/g, `/sessions/${sessionId}`)
      .replace(/\/services\/:name(\{[^}]*\})?/g, '/services/jellyfin')
      .replace(/:[a-z]+(\{[^}]*\})?/gi, '1');
    const key = `${r.method} ${path}`;
    if (path === '/login' || seen.has(key)) continue;
    seen.add(key);
    out.push({ method: r.method, path });
  }
  return out;
}

function snapshot(): string {
  const tables = [
    'sessions',
    'events',
    'memories',
    'memory_history',
    'cooldown_actions',
    'cooldown_blocks',
  ];
  return (
    JSON.stringify(tables.map((t) => h.stores.db.prepare(`SELECT * FROM ${t} ORDER BY id`).all())) +
    JSON.stringify(h.stores.db.prepare('SELECT * FROM services ORDER BY name').all()) +
    JSON.stringify(h.runner.requests) +
    h.runner.stops
  );
}

const bodies = {
  form: () =>
    new URLSearchParams({
      observation: 'changed',
      confidence: '0.9',
      category: 'timing',
      ids: String(memoryId),
      description: 'changed',
      prompt: 'x',
      tier: '1',
    }),
  json: () =>
    JSON.stringify({
      observation: 'changed',
      confidence: 0.9,
      category: 'timing',
      ids: [memoryId],
      prompt: 'x',
      tier: 1,
      text: 'alert',
      description: 'changed',
    }),
};

describe('authentication and CSRF on every mutating route', () => {
  it('finds the mutating routes', () => {
    const routes = mutatingRoutes().map((r) => `${r.method} ${r.path.replace(/\/\d+/g, '/N')}`);
    expect(routes).toEqual(
      expect.arrayContaining([
        'POST /memories',
        'PUT /memories/N',
        'DELETE /memories/N',
        'DELETE /memories/bulk',
        'POST /api/v1/memories',
        'POST /services/jellyfin',
        'PUT /api/v1/services/jellyfin',
        'POST /logout',
      ]),
    );
  });

  it('refuses every mutation without a credential (401), changing nothing', async () => {
    const before = snapshot();
    for (const r of mutatingRoutes()) {
      for (const type of ['form', 'json'] as const) {
        const res = await h.request(r.path, {
          method: r.method,
          body: bodies[type](),
          headers: {
            'Content-Type':
              type === 'form' ? 'application/x-www-form-urlencoded' : 'application/json',
          },
        });
        expect([r.method, r.path, res.status]).toEqual([r.method, r.path, 401]);
      }
    }
    expect(snapshot()).toBe(before);
  });

  it('refuses a wrong bearer token (401)', async () => {
    const before = snapshot();
    for (const r of mutatingRoutes()) {
      const res = await h.request(r.path, {
        method: r.method,
        body: bodies.json(),
        headers: {
          Authorization: 'Bearer wrong-token-0000000000',
          'Content-Type': 'application/json',
        },
      });
      expect([r.path, res.status]).toEqual([r.path, 401]);
    }
    expect(snapshot()).toBe(before);
  });

  it('refuses a signed-in mutation without, or with a wrong, CSRF token (403), changing nothing', async () => {
    const before = snapshot();
    for (const r of mutatingRoutes()) {
      for (const csrf of [undefined, 'not-the-token', `${auth.csrf}x`]) {
        const headers: Record<string, string> = {
          Cookie: auth.cookie,
          'Content-Type': 'application/x-www-form-urlencoded',
        };
        if (csrf) headers['X-CSRF-Token'] = csrf;
        const res = await h.request(r.path, { method: r.method, body: bodies.form(), headers });
        // The OpenAI-compatible routes take no cookie at all: a bearer token or a 401.
        const refused = r.path.startsWith('/v1/') ? 401 : 403;
        expect([r.method, r.path, csrf, res.status]).toEqual([r.method, r.path, csrf, refused]);
      }
    }
    expect(snapshot()).toBe(before);
  });

  it('refuses a cross-site form post even with the session cookie and token (403)', async () => {
    const before = snapshot();
    for (const r of mutatingRoutes()) {
      const res = await h.request(r.path, {
        method: r.method,
        body: new URLSearchParams({ _csrf: auth.csrf, observation: 'x' }),
        headers: {
          Cookie: auth.cookie,
          'Content-Type': 'application/x-www-form-urlencoded',
          Origin: 'https://evil.example',
        },
      });
      expect([r.path, res.status]).toEqual([r.path, 403]);
    }
    expect(snapshot()).toBe(before);
  });

  it('accepts a plain form with the _csrf field, and htmx with the header', async () => {
    const plain = await h.request(`/memories`, {
      method: 'POST',
      body: new URLSearchParams({
        _csrf: auth.csrf,
        category: 'timing',
        observation: 'Plain form works',
      }),
      headers: {
        Cookie: auth.cookie,
        'Content-Type': 'application/x-www-form-urlencoded',
        Origin: 'http://localhost',
      },
    });
    expect(plain.status).toBe(303);
    expect(h.stores.memories.list().map((m) => m.observation)).toContain('Plain form works');
  });
});

describe('sign-in and headers', () => {
  it('sends pages to sign-in, and the API answers 401 JSON', async () => {
    const page = await h.request('/memories');
    expect(page.status).toBe(303);
    expect(page.headers.get('Location')).toBe('/login?next=%2Fmemories');
    const api = await h.request('/api/v1/memories');
    expect(api.status).toBe(401);
    expect(await api.json()).toEqual({
      error: { code: 'unauthorized', message: 'sign in, or send Authorization: Bearer TOKEN' },
    });
    expect(
      (await h.request('/api/v1/memories', { headers: { Authorization: `Bearer ${TOKEN}` } }))
        .status,
    ).toBe(200);
  });

  it('rejects wrong credentials and never echoes them; does not redirect off-site after sign-in', async () => {
    const bad = await h.request('/login', {
      method: 'POST',
      body: new URLSearchParams({ token: 'guess-guess-guess-guess' }),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(bad.status).toBe(401);
    expect(await bad.text()).not.toContain('guess-guess');
    const ok = await h.request('/login', {
      method: 'POST',
      body: new URLSearchParams({ token: TOKEN, next: '//evil.example/x' }),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(ok.headers.get('Location')).toBe('/');
    expect(ok.headers.get('Set-Cookie')).toMatch(/HttpOnly; SameSite=Strict/);
  });

  it('sets the security headers and never puts the token in a page', async () => {
    const res = await h.request('/memories', { headers: { Cookie: auth.cookie } });
    expect(res.headers.get('Content-Security-Policy')).toBe(CSP);
    expect(CSP).toContain("script-src 'self'");
    expect(CSP).not.toContain('unsafe-inline');
    expect(CSP).toContain("frame-ancestors 'none'");
    expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
    const html = await res.text();
    expect(html).not.toContain(TOKEN);
    expect(html).not.toMatch(/<script>(?!<\/script>)/); // no inline script
  });

  it('with no credential configured: no sign-in, but CSRF still required for browsers', async () => {
    const open = webHarness({ open: true });
    try {
      const first = await open.request('/memories');
      expect(first.status).toBe(200);
      const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0]!;
      const res = await open.request('/memories', {
        method: 'POST',
        body: new URLSearchParams({ category: 'timing', observation: 'x' }),
        headers: { Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
      });
      expect(res.status).toBe(403);
      const forged = await open.request('/memories', {
        method: 'POST',
        body: new URLSearchParams({ category: 'timing', observation: 'x' }),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      });
      expect(forged.status).toBe(403);
      expect(await open.stores.memories.count({ status: 'all' })).toBe(0);
      // A script on this machine may use the JSON API (a cross-site page cannot send JSON without CORS).
      const script = await open.request('/api/v1/memories', {
        method: 'POST',
        body: JSON.stringify({ category: 'timing', observation: 'from a script' }),
        headers: { 'Content-Type': 'application/json' },
      });
      expect(script.status).toBe(201);
    } finally {
      open.close();
    }
  });

  it('refuses to start an open dashboard on a non-loopback address', async () => {
    const { loadConfig } = await import('../../src/config/index.js');
    const { checkListenAddress } = await import('../../src/web/server.js');
    expect(() => checkListenAddress(loadConfig({ WATCHKEEPER_HOST: '0.0.0.0' }).web)).toThrow(
      /refusing to serve the dashboard on 0.0.0.0 without a credential/,
    );
    expect(() =>
      checkListenAddress(
        loadConfig({ WATCHKEEPER_HOST: '0.0.0.0', WATCHKEEPER_AUTH_TOKEN: TOKEN }).web,
      ),
    ).not.toThrow();
    expect(() => loadConfig({ WATCHKEEPER_AUTH_TOKEN: 'short' })).toThrow(
      'WATCHKEEPER_AUTH_TOKEN=(hidden, 5 characters): must be at least 16 characters',
    );
  });
});
