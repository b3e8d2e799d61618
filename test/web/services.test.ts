/**
 * Services over HTTP: the Services page (every service with what it is, who said so, and its
 * counts), one service's page with the description in an edit box, and the JSON API
 * (`GET /api/v1/services`, `GET|PUT /api/v1/services/{name}`). What the operator writes is
 * searched with the service's memories.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { cooldownRow } from '../helpers/db.js';
import { TOKEN, webHarness, type WebHarness } from '../helpers/web.js';

let h: WebHarness;
let auth: { cookie: string; csrf: string };
let jellyfinMemory: number;
beforeEach(async () => {
  h = webHarness();
  auth = await h.login();
  jellyfinMemory = (
    await h.knowledge.memory.add({
      service: 'jellyfin',
      category: 'timing',
      observation: 'Takes 60s to come back after a restart',
    })
  ).memory.id;
  h.stores.events.insert({
    sessionId: null,
    source: 'agent',
    level: 'warning',
    service: 'jellyfin',
    message: '/health took 2.9s',
    createdAt: h.clock.now(),
  });
  h.stores.events.insert({
    sessionId: null,
    source: 'agent',
    level: 'info',
    service: 'homebrew-sync',
    message: 'synced 3 folders',
    createdAt: h.clock.now(),
  });
  h.stores.cooldowns.insert(cooldownRow({ service: 'jellyfin', createdAt: h.clock.now() }));
});
afterEach(() => h.close());

const api = (path: string, init: RequestInit = {}) =>
  h.request(`/api/v1${path}`, {
    ...init,
    headers: {
      Authorization: `Bearer ${TOKEN}`,
      'Content-Type': 'application/json',
      ...(init.headers as Record<string, string>),
    },
  });
const put = (name: string, body: unknown) =>
  api(`/services/${name}`, { method: 'PUT', body: JSON.stringify(body) });
const page = (path: string) => h.request(path, { headers: { Cookie: auth.cookie } });
const post = (name: string, fields: Record<string, string>) =>
  h.request(`/services/${name}`, {
    method: 'POST',
    body: new URLSearchParams({ _csrf: auth.csrf, ...fields }),
    headers: {
      Cookie: auth.cookie,
      'Content-Type': 'application/x-www-form-urlencoded',
      Origin: 'http://localhost',
    },
  });

interface ServiceBody {
  name: string;
  description: string | null;
  description_source: string | null;
  active_memories: number;
  events: number;
  last_event_at: string | null;
  cooldown_actions: number;
  catalog: { name: string; description: string } | null;
}

describe('services API', () => {
  it('lists every service an event, memory or cooldown names, with what it is and counts', async () => {
    const res = await api('/services');
    expect(res.status).toBe(200);
    const { services } = (await res.json()) as { services: ServiceBody[] };
    expect(services.map((s) => s.name)).toEqual(['homebrew-sync', 'jellyfin']);
    expect(services[1]).toMatchObject({
      name: 'jellyfin',
      description_source: 'catalog',
      active_memories: 1,
      events: 1,
      cooldown_actions: 1,
      last_event_at: new Date(h.clock.now()).toISOString(),
    });
    expect(services[1]!.description).toContain('media server');
    expect(services[0]).toMatchObject({ description: null, description_source: null, events: 1 });
  });

  it('shows one service; a name nothing uses is a 404', async () => {
    const one = (await (await api('/services/jellyfin')).json()) as ServiceBody;
    expect(one.name).toBe('jellyfin');
    expect(one.catalog?.name).toBe('jellyfin');
    for (const name of ['nosuchservice', 'bad%20name']) {
      const res = await api(`/services/${name}`);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
  });

  it("sets the operator's description, which search then finds; empty restores the catalog's", async () => {
    const res = await put('jellyfin', { description: 'the family movie box in the attic' });
    expect(res.status).toBe(200);
    const after = (await res.json()) as ServiceBody;
    expect(after).toMatchObject({
      description: 'the family movie box in the attic',
      description_source: 'operator',
    });
    expect(after.catalog?.description).toContain('media server');
    const found = (await (await api('/memories/search?q=attic+movie+box')).json()) as {
      results: { id: number }[];
    };
    expect(found.results.map((r) => r.id)).toEqual([jellyfinMemory]);

    const restored = (await (await put('jellyfin', { description: '  ' })).json()) as ServiceBody;
    expect(restored.description_source).toBe('catalog');
    expect(restored.description).toContain('media server');
  });

  it.each([
    [{ description: 'bell\u0007ringer' }, 'control character U+0007'],
    [{ description: 'x'.repeat(501) }, 'over the limit of 500'],
    [{ text: 'what it is' }, 'must be text'],
    [{ description: 42 }, 'must be text'],
  ])('refuses %j with a 400 naming description, changing nothing', async (body, message) => {
    const res = await put('jellyfin', body);
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { field: string; message: string } };
    expect(error.field).toBe('description');
    expect(error.message).toContain(message);
    const now = (await (await api('/services/jellyfin')).json()) as ServiceBody;
    expect(now.description_source).toBe('catalog');
  });

  it('refuses to describe a service nothing names (404), storing nothing', async () => {
    const res = await put('nosuchservice', { description: 'a thing' });
    expect(res.status).toBe(404);
    expect((await h.knowledge.services.list()).map((s) => s.name)).not.toContain('nosuchservice');
  });

  it('limits the body of a description (413)', async () => {
    const res = await put('jellyfin', { description: 'x'.repeat(9000) });
    expect(res.status).toBe(413);
  });
});

describe('Services page', () => {
  it('lists each service with what it is, where that comes from, and its counts, after Memories in the nav', async () => {
    const res = await page('/services');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<title>Services · watchkeeper</title>');
    expect(html).toMatch(/Memories<\/a>\s*<a href="\/services" class="active">Services<\/a>/);
    const row = /<tr id="service-jellyfin">[\s\S]*?<\/tr>/.exec(html)?.[0] ?? '';
    expect(row).toContain('<a href="/services/jellyfin">jellyfin</a>');
    expect(row).toContain('media server');
    expect(row).toContain('<span class="badge source catalog">catalog</span>');
    expect(row).toContain('<a href="/memories?service=jellyfin&amp;status=active">1</a>');
    expect(row).toContain('<a href="/events?service=jellyfin">1</a>');
    const other = /<tr id="service-homebrew-sync">[\s\S]*?<\/tr>/.exec(html)?.[0] ?? '';
    expect(other).toContain('unknown');
  });

  it('edits the description with a form: saved, shown, and the catalog text kept beside it', async () => {
    const before = await (await page('/services/jellyfin')).text();
    expect(before).toMatch(/<textarea [^>]*name="description"[^>]*>media server/);
    const res = await post('jellyfin', {
      description: 'the movie box in the attic\r\nsecond line',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('Location')).toBe('/services/jellyfin?saved=1');
    expect(await h.knowledge.services.show('jellyfin')).toMatchObject({
      description: 'the movie box in the attic\nsecond line',
      descriptionSource: 'operator',
    });
    const after = await (await page('/services/jellyfin?saved=1')).text();
    expect(after).toContain('Saved.');
    expect(after).toContain('<span class="badge source operator">operator</span> (you)');
    expect(after).toMatch(/The catalog says: media server/);
    expect(after).toContain(
      'href="/memories?service=jellyfin&amp;status=active">1 active memory</a>',
    );
  });

  it('a refused description comes back in the form with the reason; nothing is stored', async () => {
    const res = await post('jellyfin', { description: `bad\u0001text ${'y'.repeat(10)}` });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('role="alert">description: contains the control character U+0001');
    expect(html).toContain('yyyyyyyyyy</textarea>');
    expect((await h.knowledge.services.show('jellyfin')).descriptionSource).toBe('catalog');
  });

  it('a service nothing names has no page (404)', async () => {
    expect((await page('/services/nosuchservice')).status).toBe(404);
  });
});
