/**
 * Memory search over HTTP: `GET /api/v1/memories/search` (ranked, each result with why; bad
 * parameters a 400 naming the field) and the Memories page's search box (results ranked in the
 * table, the filters applied, a note when the search ran by words only while embeddings are
 * configured). Knowledge here runs without embeddings, so ranking is lexical.
 */
import { randomBytes } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config/index.js';
import { createEmbedder } from '../../src/embed/index.js';
import { createKnowledge } from '../../src/knowledge/index.js';
import { silentLogger } from '../../src/log.js';
import { SessionFeed } from '../../src/runner/live-feed.js';
import { createApp } from '../../src/web/app.js';
import {
  eachTestSignedIn,
  fakeRunner,
  type SignedIn,
  TOKEN,
  type WebHarness,
} from '../helpers/web.js';
import { seedMemory } from '../helpers/db.js';
import { offConversations } from '../helpers/gateway.js';

let h: WebHarness;
let auth: SignedIn;
eachTestSignedIn((web) => ({ h, auth } = web));

const api = (path: string) =>
  h.request(`/api/v1${path}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
const hx = { 'HX-Request': 'true' };

interface SearchBody {
  query: string;
  mode: string;
  results: {
    id: number;
    service: string | null;
    observation: string;
    active: boolean;
    score: number;
    why: { lexical_rank: number | null; cosine: number | null; recency_weight: number };
  }[];
}

async function seed() {
  const jellyfin = await h.knowledge.memory.add({
    service: 'jellyfin',
    category: 'timing',
    observation: 'Takes 60s to come back after a restart; the health check fails until then',
  });
  const postgres = await h.knowledge.memory.add({
    service: 'postgres',
    category: 'maintenance',
    observation: 'Needs VACUUM weekly or queries slow down',
  });
  const caddy = await h.knowledge.memory.add({
    service: 'caddy',
    category: 'dependency',
    observation: 'Comes back after a restart only once WireGuard is up',
  });
  return { jellyfin: jellyfin.memory, postgres: postgres.memory, caddy: caddy.memory };
}

describe('GET /api/v1/memories/search', () => {
  it('ranks matching memories first, each with the components of its score', async () => {
    const m = await seed();
    const res = await api('/memories/search?q=' + encodeURIComponent('restart health'));
    expect(res.status).toBe(200);
    const body = (await res.json()) as SearchBody;
    expect(body.query).toBe('restart health');
    expect(body.mode).toBe('lexical');
    expect(body.results.map((r) => r.id)).toEqual([m.jellyfin.id, m.caddy.id]);
    expect(body.results[0]!.why).toMatchObject({
      lexical_rank: 1,
      cosine: null,
      recency_weight: 1,
    });
    expect(body.results[0]!.score).toBeGreaterThan(body.results[1]!.score);
  });

  it('with explain=1 also lists the candidates that were cut, each with its reason', async () => {
    const m = await seed();
    const plain = (await (await api('/memories/search?q=restart&limit=1')).json()) as SearchBody;
    expect(plain).not.toHaveProperty('cut');
    const res = await api('/memories/search?q=restart&limit=1&explain=1');
    expect(res.status).toBe(200);
    const body = (await res.json()) as SearchBody & {
      cut: { id: number; reason: string; detail: string; score: number }[];
    };
    expect(body.results).toEqual(plain.results);
    // Both memories that say "restart" pass; the one that ranked second is past the limit.
    const second = [m.jellyfin.id, m.caddy.id].find((id) => id !== body.results[0]!.id);
    expect(body.cut).toEqual([
      expect.objectContaining({
        id: second,
        reason: 'outranked',
        detail: 'ranked 2, past the limit of 1',
      }),
    ]);
  });

  it("finds a service's memories by what the service is (the catalog's description)", async () => {
    const m = await seed();
    const body = (await (
      await api('/memories/search?q=' + encodeURIComponent('media server'))
    ).json()) as SearchBody;
    // Jellyfin's own words say nothing of a media server; the catalog says what jellyfin is.
    expect(body.results[0]!.id).toBe(m.jellyfin.id);
  });

  it('applies service, category, status, limit and time filters', async () => {
    const m = await seed();
    const q = 'q=restart';
    const ids = async (params: string) =>
      ((await (await api(`/memories/search?${q}&${params}`)).json()) as SearchBody).results.map(
        (r) => r.id,
      );
    expect(await ids('service=caddy')).toEqual([m.caddy.id]);
    expect(await ids('category=timing')).toEqual([m.jellyfin.id]);
    expect(await ids('limit=1')).toHaveLength(1);
    await h.knowledge.memory.deactivate([m.caddy.id]);
    // Inactive memories are found only when asked for.
    expect(await ids('')).toEqual([m.jellyfin.id]);
    expect(await ids('status=inactive')).toEqual([m.caddy.id]);
    expect((await ids('status=all')).sort()).toEqual([m.jellyfin.id, m.caddy.id].sort());
    // Reinforced later: only it falls inside a window that starts after the seeding.
    const seededAt = h.clock.now();
    h.clock.advance(3_600_000);
    await h.knowledge.memory.add({
      service: 'jellyfin',
      category: 'timing',
      observation: 'Takes 60s to come back after a restart; the health check fails until then',
    });
    const since = new Date(seededAt + 60_000).toISOString();
    expect(await ids(`status=all&since=${since}`)).toEqual([m.jellyfin.id]);
    expect(await ids(`status=all&until=${since}`)).toEqual([m.caddy.id]);
    expect(await ids('status=all&since=2020-01-01&until=2020-02-01')).toEqual([]);
  });

  it.each([
    ['', 'q'],
    ['q=%20%20', 'q'],
    [`q=${'x'.repeat(2001)}`, 'q'],
    ['q=restart&limit=0', 'limit'],
    ['q=restart&limit=101', 'limit'],
    ['q=restart&limit=ten', 'limit'],
    ['q=restart&service=nosuchservice', 'service'],
    ['q=restart&service=bad%20name', 'service'],
    ['q=restart&category=gossip', 'category'],
    ['q=restart&status=weird', 'status'],
    ['q=restart&since=yesterday', 'since'],
    ['q=restart&until=2024-05-01T12:00:00', 'until'],
    ['q=restart&since=2024-05-02&until=2024-05-01', 'until'],
    ['q=restart&explain=maybe', 'explain'],
  ])('refuses ?%s with a 400 naming %s', async (params, field) => {
    await seed();
    const res = await api(`/memories/search?${params}`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string; field: string } };
    expect(body.error).toMatchObject({ code: 'usage', field });
    expect(body.error.message.startsWith(`${field}: `)).toBe(true);
  });

  it('takes `general` for memories without a service, and needs a credential', async () => {
    seedMemory(h, { service: null, category: 'behavior', observation: 'DNS restart fixes it' });
    await seed();
    const body = (await (
      await api('/memories/search?q=restart&service=general')
    ).json()) as SearchBody;
    expect(body.results.map((r) => r.observation)).toEqual(['DNS restart fixes it']);
    expect((await h.request('/api/v1/memories/search?q=restart')).status).toBe(401);
  });
});

describe('the search box on /memories', () => {
  const page = (path: string, headers: Record<string, string> = {}) =>
    h.request(path, { headers: { Cookie: auth.cookie, ...headers } });
  const rowIds = (html: string) =>
    [...html.matchAll(/<tr id="memory-(\d+)"/g)].map((x) => Number(x[1]));

  it('has a search box that searches as you type, kept with the filters', async () => {
    const html = await (await page('/memories')).text();
    const box = /<input type="search" name="q"[^>]*>/.exec(html)?.[0] ?? '';
    expect(box).toContain('hx-trigger="input changed delay:300ms, search"');
    expect(box).toContain('hx-include="#memory-filters"');
    expect(box).toContain('placeholder="Search by meaning');
    // The box sits in the filter form, which the 5 s refresh sends along.
    expect(html).toMatch(/<form id="memory-filters"[\s\S]*name="q"[\s\S]*<\/form>/);
    expect(html).toMatch(
      /<div id="memory-table" data-refresh data-q=""[^>]*hx-include="#memory-filters"/,
    );
  });

  it('shows the results ranked, each with why, and applies the filters', async () => {
    const m = await seed();
    const res = await page('/memories?q=restart+health&status=all', hx);
    const html = await res.text();
    expect(html.startsWith('<div id="memory-table" data-refresh data-q="restart health"')).toBe(
      true,
    );
    expect(rowIds(html)).toEqual([m.jellyfin.id, m.caddy.id]);
    expect(html).toContain('2 results, best first, for “restart health”.');
    const why = [...html.matchAll(/<div class="why"[^>]*>(.*?)<\/div>/g)].map((x) =>
      x[1]!.replace(/<[^>]+>/g, ''),
    );
    expect(why[0]).toMatch(/^1\. words rank 1 · conf ×0\.85 · recency ×1\.00 · score \d\.\d\d$/);
    expect(why[1]).toMatch(/^2\. words rank 2 · /);
    expect(html).not.toContain('Matched by words only');

    const filtered = await (
      await page('/memories?q=restart+health&service=caddy&status=all', hx)
    ).text();
    expect(rowIds(filtered)).toEqual([m.caddy.id]);
    const none = await (
      await page('/memories?q=restart&category=maintenance&status=all', hx)
    ).text();
    expect(rowIds(none)).toEqual([]);
    expect(none).toContain('No memory matches “restart”.');
  });

  it('shows each memory’s id as #id; a rank reads "1.", a session "session N"', async () => {
    const session = h.stores.sessions.start({ trigger: 'manual', tier: 1, startedAt: 0 });
    const other = seedMemory(h, { service: 'caddy', category: 'behavior', observation: 'x' });
    const m = seedMemory(h, {
      service: 'jellyfin',
      category: 'timing',
      observation: 'Slow restart after an upgrade',
      sessionId: session,
    });
    expect(m.id).not.toBe(session); // so that the two numbers cannot be confused below
    for (const path of ['/memories', '/memories?q=slow+restart']) {
      const html = await (await page(path, hx)).text();
      const row = new RegExp(`<tr id="memory-${m.id}"[\\s\\S]*?</tr>`).exec(html)![0];
      const text = row.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
      // The only #N on the row is the memory's own id, shown where it can be selected and copied.
      expect(row).toMatch(new RegExp(`<small class="muted memory-id"[^>]*>#${m.id}</small>`));
      expect(text.match(/#\d+/g)).toEqual([`#${m.id}`]);
      expect(row).toContain(`<a href="/sessions/${session}">session ${session}</a>`);
      if (path.includes('q=')) expect(text).toMatch(/ 1\. words rank 1 · /);
    }
    expect((await (await page('/memories', hx)).text()).includes(`#${other.id}</small>`)).toBe(
      true,
    );
  });

  it('without a query the table is the plain list; a page opened with one fills the box', async () => {
    const m = await seed();
    const plain = await (await page('/memories', hx)).text();
    expect(rowIds(plain).sort()).toEqual([m.jellyfin.id, m.postgres.id, m.caddy.id].sort());
    expect(plain).not.toContain('class="why"');
    const full = await (await page('/memories?q=vacuum')).text();
    expect(full).toContain('name="q" id="memory-search" value="vacuum"');
    expect(rowIds(full)).toEqual([m.postgres.id]);
  });

  it('says so when a search ran by words only although embeddings are configured', async () => {
    // The real Ollama backend, pointed at a port where nothing answers.
    const embedder = createEmbedder({
      backend: 'ollama',
      url: 'http://127.0.0.1:9',
      model: null,
      key: null,
      timeoutMs: 2000,
    })!;
    const knowledge = createKnowledge({ stores: h.stores, embedder, clock: h.clock });
    const app = createApp({
      config: loadConfig({ WATCHKEEPER_DATA_DIR: h.dataDir }),
      stores: h.stores,
      knowledge,
      ...offConversations({ stores: h.stores, knowledge, clock: h.clock }),
      feed: new SessionFeed(),
      runner: fakeRunner(),
      clock: h.clock,
      log: silentLogger,
      demo: false,
      secret: randomBytes(32),
    });
    try {
      await knowledge.memory.add({
        service: 'jellyfin',
        category: 'timing',
        observation: 'Takes 60s to come back after a restart',
      });
      const res = await app.request('http://localhost/memories?q=restart', {
        headers: { Host: 'localhost', 'HX-Request': 'true' },
      });
      const html = await res.text();
      expect(html).toContain('Takes 60s to come back after a restart');
      expect(html).toContain('Matched by words only: embeddings are not answering');
    } finally {
      await embedder.close();
    }
  });
});
