import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { NewEvent } from '../../src/db/index.js';
import { TOKEN, webHarness, type WebHarness } from '../helpers/web.js';

let h: WebHarness;
let cookie: string;
beforeEach(async () => {
  h = webHarness();
  ({ cookie } = await h.login());
});
afterEach(() => h.close());

const get = (path: string, headers: Record<string, string> = {}) =>
  h.request(path, { headers: { Cookie: cookie, ...headers } });
const htmx = (path: string) => get(path, { 'HX-Request': 'true' });
const api = (path: string) => h.request(path, { headers: { Authorization: `Bearer ${TOKEN}` } });

function event(e: Partial<NewEvent> & { message: string }): number {
  return h.stores.events.insert({
    sessionId: null,
    source: 'agent',
    level: 'info',
    service: null,
    createdAt: h.clock.now(),
    ...e,
  });
}

function session(): number {
  return h.stores.sessions.start({ trigger: 'manual', tier: 1, startedAt: h.clock.now() });
}

/** Message cells of the events table, top to bottom. */
const messages = (html: string) =>
  [...html.matchAll(/<td class="wrap">([^<]*)<\/td>/g)].map((m) => m[1]);

/** A small mixed set: every filter selects a known subset. */
function fixture() {
  const s = session();
  event({ message: 'disk at 80%', level: 'warning', service: 'nas', createdAt: 1000 });
  event({ message: 'nas down', level: 'critical', service: 'nas', sessionId: s, createdAt: 2000 });
  event({ message: 'web ok', service: 'web', sessionId: s, createdAt: 3000 });
  event({ message: 'run timed out', source: 'system', level: 'warning', createdAt: 4000 });
  return { s };
}

describe('GET /events', () => {
  it('lists events newest first with level badges, critical rows and session links', async () => {
    const { s } = fixture();
    const res = await get('/events');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(messages(html)).toEqual(['run timed out', 'web ok', 'nas down', 'disk at 80%']);
    expect(html).toMatch(/<tr id="event-\d+" class="critical">/);
    expect(html.match(/class="critical"/g)).toHaveLength(1);
    expect(html).toContain('<span class="badge warning">warning</span>');
    expect(html).toContain(`<a href="/sessions/${s}">#${s}</a>`);
    expect(html).toContain('<option value="nas"><option value="web">');
    expect(html).toContain(
      'hx-trigger="every 5s, events-changed from:body" hx-include="#event-filters"',
    );
  });

  it('filters by level, service, session and source', async () => {
    const { s } = fixture();
    expect(messages(await (await get('/events?level=warning')).text())).toEqual([
      'run timed out',
      'disk at 80%',
    ]);
    expect(messages(await (await get('/events?service=NAS')).text())).toEqual([
      'nas down',
      'disk at 80%',
    ]);
    expect(messages(await (await get(`/events?session=${s}`)).text())).toEqual([
      'web ok',
      'nas down',
    ]);
    expect(messages(await (await get('/events?source=system')).text())).toEqual(['run timed out']);
    expect(messages(await (await get('/events?level=critical&service=nas')).text())).toEqual([
      'nas down',
    ]);
  });

  it('ignores values it cannot use, shows them back, and does not fail', async () => {
    fixture();
    const res = await get('/events?level=bogus&session=abc&source=%3Cscript%3E');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(messages(html)).toHaveLength(4);
    expect(html).toContain('<option value="bogus" selected>bogus (ignored)</option>');
    expect(html).toContain('name="session" value="abc"');
    expect(html).toContain('level "bogus" (must be one of info, warning, critical)');
    expect(html).toContain('session "abc" (must be a session number)');
    expect(html).toContain('&lt;script&gt;');
    expect(html).not.toContain('<script>');
  });

  it('escapes what the model wrote', async () => {
    event({ message: '<img src=x onerror=alert(1)>', service: 'a"b' });
    const html = await (await get('/events')).text();
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('a&quot;b');
  });

  it('pages by 100 without counting, and the pager keeps the filters', async () => {
    for (let i = 0; i < 205; i += 1) {
      event({ message: `m${i}`, level: i % 2 === 0 ? 'warning' : 'info', createdAt: i });
    }
    const first = await (await get('/events?level=warning')).text();
    expect(messages(first)).toHaveLength(100);
    expect(messages(first)[0]).toBe('m204');
    expect(first).toContain('href="/events?level=warning&amp;page=2"');
    expect(first).not.toContain('Newer');
    const second = await (await get('/events?level=warning&page=2')).text();
    expect(messages(second)).toHaveLength(3);
    expect(second).toContain('href="/events?level=warning&amp;page=1"');
    expect(second).not.toContain('Older');
    const bad = await get('/events?page=-3');
    expect(messages(await bad.text())).toHaveLength(100);
    // A page past the last (the events were pruned since the link was made) shows the last.
    const past = await (await get('/events?level=warning&page=7')).text();
    expect(messages(past)).toEqual(messages(second));
  });

  it('answers htmx with the table partial, keeping the filters for the refresh', async () => {
    fixture();
    const res = await htmx('/events?service=nas&level=critical&page=1');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).not.toContain('<html');
    expect(html).not.toContain('id="event-filters"');
    expect(messages(html)).toEqual(['nas down']);
    expect(html).toMatch(
      /<div id="event-table" data-refresh hx-get="\/events" hx-trigger="every 5s, events-changed from:body" hx-include="#event-filters"/,
    );
    expect(html).toContain('id="event-page" value="1" hx-swap-oob="true"');
  });

  it('shows an event written after the table was last rendered', async () => {
    fixture();
    expect(messages(await (await get('/events?level=critical')).text())).toEqual(['nas down']);
    event({ message: 'nas down again', level: 'critical', createdAt: 5000 });
    expect(messages(await (await htmx('/events?level=critical')).text())).toEqual([
      'nas down again',
      'nas down',
    ]);
    expect(messages(await (await get('/events?level=critical')).text())).toEqual([
      'nas down again',
      'nas down',
    ]);
  });

  it('caches the service list for 10 s', async () => {
    event({ message: 'a', service: 'alpha' });
    await get('/events');
    event({ message: 'b', service: 'beta' });
    expect(await (await get('/events')).text()).not.toContain('<option value="beta">');
    h.clock.advance(10_001);
    expect(await (await get('/events')).text()).toContain('<option value="beta">');
  });
});

describe('GET /api/v1/events', () => {
  it('returns eventJson rows newest first with paging', async () => {
    const { s } = fixture();
    const res = await api('/api/v1/events?limit=2');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { events: Record<string, unknown>[] };
    expect(body).toMatchObject({ limit: 2, offset: 0, has_more: true });
    expect(body.events).toHaveLength(2);
    expect(body.events[1]).toEqual({
      id: expect.any(Number),
      session_id: s,
      source: 'agent',
      level: 'info',
      service: 'web',
      message: 'web ok',
      created_at: new Date(3000).toISOString(),
      instance: 'local',
    });
    const rest = (await (await api('/api/v1/events?limit=2&offset=2')).json()) as {
      events: { message: string }[];
      has_more: boolean;
    };
    expect(rest.events.map((e) => e.message)).toEqual(['nas down', 'disk at 80%']);
    expect(rest.has_more).toBe(false);
  });

  it('filters like the page', async () => {
    const { s } = fixture();
    const body = (await (
      await api(`/api/v1/events?session=${s}&level=critical&source=agent&service=nas`)
    ).json()) as { events: { message: string }[] };
    expect(body.events.map((e) => e.message)).toEqual(['nas down']);
  });

  it('answers 400 naming the field for an unusable filter or limit', async () => {
    const res = await api('/api/v1/events?level=loud');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: {
        code: 'usage',
        message: 'level must be one of info, warning, critical',
        field: 'level',
      },
    });
    const limit = await api('/api/v1/events?limit=-1');
    expect(limit.status).toBe(400);
    expect(((await limit.json()) as { error: { field: string } }).error.field).toBe('limit');
  });

  it('needs a credential', async () => {
    const res = await h.request('/api/v1/events');
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
  });
});
