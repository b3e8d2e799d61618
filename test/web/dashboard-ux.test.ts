/**
 * What the operator reads on every page: times in one format and in their zone, the styled 404
 * and error pages with navigation, a memory's history titled with the memory (closable) and its
 * confidence chart with axes, and when each memory was last reinforced.
 */
import { afterEach, describe, expect, it } from 'vitest';

import { seedMemory } from '../helpers/db.js';
import {
  eachTestSignedIn,
  htmxHeaders,
  type SignedIn,
  webHarness,
  type WebHarness,
} from '../helpers/web.js';

/** Text of an HTML fragment without tags, whitespace (no-break spaces too) collapsed. */
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

describe('times in WATCHKEEPER_TZ', () => {
  let tz: WebHarness;
  afterEach(() => tz?.close());

  it('shows every time with seconds, on one line, in the configured zone', async () => {
    tz = webHarness({ env: { WATCHKEEPER_TZ: 'Asia/Tokyo' } });
    const { cookie } = await tz.login();
    const at = Date.UTC(2026, 0, 1, 16, 30, 5); // 01:30:05 on Jan 2 in Tokyo
    tz.stores.events.insert({
      sessionId: null,
      source: 'agent',
      level: 'warning',
      service: 'caddy',
      message: 'slow TLS handshake',
      createdAt: at,
    });
    const html = await (await tz.request('/events', { headers: { Cookie: cookie } })).text();
    // No-break spaces: the browser never breaks the timestamp over two lines.
    expect(html).toContain('2026-01-02\u00a001:30:05\u00a0GMT+9');
    expect(html).not.toContain('2026-01-01 16:30');
  });
});

describe('pages the operator reads', () => {
  let h: WebHarness;
  let auth: SignedIn;
  eachTestSignedIn((web) => ({ h, auth } = web));
  const get = (path: string, headers: Record<string, string> = {}) =>
    h.request(path, { headers: { Cookie: auth.cookie, ...headers } });

  it('answers an unknown page with a styled 404 page that has the navigation', async () => {
    const res = await get('/no/such/page');
    expect(res.status).toBe(404);
    const html = await res.text();
    expect(html).toContain('<title>Not found · watchkeeper</title>');
    expect(html).toContain('<nav id="site-nav"');
    expect(text(html)).toContain('Not found 404 no route for GET /no/such/page');
    expect(html).toContain('<link rel="stylesheet" href="/static/app.css">');
    // A missing session is the same page, naming what is missing.
    const session = await get('/sessions/999');
    expect(session.status).toBe(404);
    expect(text(await session.text())).toContain('session 999 does not exist');
    // htmx and scripts still get a fragment and JSON.
    const frag = await (await get('/no/such/page', { 'HX-Request': 'true' })).text();
    expect(frag).toBe('<p class="error" role="alert">no route for GET /no/such/page</p>');
    const api = await get('/api/v1/nothing-here');
    expect(await api.json()).toMatchObject({ error: { code: 'not_found' } });
  });

  it('answers a failure with a styled error page that says nothing of the cause', async () => {
    h.runner.status = () => {
      throw new Error('secret internals: /srv/db locked');
    };
    const res = await get('/');
    expect(res.status).toBe(500);
    const html = await res.text();
    expect(html).toContain('<title>Something went wrong · watchkeeper</title>');
    expect(html).toContain('<nav id="site-nav"');
    expect(text(html)).toContain('internal error; see the watchkeeper log');
    expect(html).not.toContain('secret internals');
  });

  it('shows when each memory was last reinforced', async () => {
    const m = seedMemory(h, { service: 'nas', category: 'timing', observation: 'Spins up slowly' });
    h.clock.advance(3_600_000 + 7_000);
    h.keeper.reinforce(m.id, { sessionId: null, evidence: 'seen again' });
    const html = await (await get('/memories')).text();
    expect(html).toContain('>Reinforced</th>');
    const row = html.slice(html.indexOf(`id="memory-${m.id}"`));
    const reinforced = h.stores.memories.get(m.id)!.lastReinforcedAt;
    expect(reinforced).toBe(Date.UTC(2026, 0, 1, 1, 0, 7)); // the reinforcement, not the creation
    const shown = new Date(reinforced).toISOString().slice(0, 19).replace('T', '\u00a0');
    expect(row).toContain(`${shown}\u00a0UTC</time></td>`);
  });

  it('titles the history panel with its memory, closable, and draws the chart with axes', async () => {
    const m = seedMemory(h, {
      service: 'jellyfin',
      category: 'timing',
      observation: 'Takes 60s to start',
    });
    h.clock.advance(2 * 3_600_000); // within the sign-in's 12 h
    await h.keeper.update(m.id, { confidence: 0.9 });
    const res = await h.request(`/memories/${m.id}/history`, { headers: htmxHeaders(auth) });
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(text(html)).toContain(
      `History of memory #${m.id}: Takes 60s to start [timing:jellyfin]`,
    );
    expect(html).toContain('data-close="history-panel"');
    expect(html.match(/<line class="axis"/g)).toHaveLength(2);
    const ticks = [...html.matchAll(/<text class="tick"[^>]*>([^<]*)<\/text>/g)].map((t) => t[1]);
    // Both changes on one day: the time axis gives the times of day.
    expect(ticks).toEqual(['1', '0.3', '0', '00:00:00\u00a0UTC', '02:00:00\u00a0UTC']);
  });
});
