/**
 * The dashboard and API of one instance (`local`) over a store another instance (`cluster-b`)
 * writes to as well: the instance on each session and event, the instance filter, and Stop of a
 * session that runs elsewhere.
 */
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { openStores, type Stores } from '../../src/db/index.js';
import { TOKEN, type WebHarness, webHarness } from '../helpers/web.js';

let h: WebHarness;
let other: Stores;
let auth: { cookie: string; csrf: string };
let ids: { local: number; remote: number; remoteDone: number };

beforeEach(async () => {
  h = webHarness();
  auth = await h.login();
  other = openStores(join(h.dataDir, 'watchkeeper.db'), { instance: 'cluster-b' });
  const now = h.clock.now();
  const start = (stores: Stores) =>
    stores.sessions.start({ trigger: 'scheduled', tier: 1, startedAt: now });
  const local = start(h.stores);
  h.stores.sessions.finish(local, { status: 'completed', endedAt: now + 1000 });
  const remoteDone = start(other);
  other.sessions.finish(remoteDone, { status: 'failed', endedAt: now + 1000 });
  const remote = start(other);
  ids = { local, remote, remoteDone };
  const event = (stores: Stores, message: string, sessionId: number) =>
    stores.events.insert({
      sessionId,
      source: 'agent',
      level: 'warning',
      service: 'db',
      message,
      createdAt: now,
    });
  event(h.stores, 'seen here', local);
  event(other, 'seen on cluster-b', remote);
});
afterEach(() => {
  other.close();
  h.close();
});

const get = (path: string, headers: Record<string, string> = {}) =>
  h.request(path, { headers: { Cookie: auth.cookie, ...headers } });
const api = (path: string, init: RequestInit = {}) =>
  h.request(`/api/v1${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${TOKEN}`, ...(init.headers as Record<string, string>) },
  });
const json = async <T>(res: Response) => (await res.json()) as T;

describe('the API', () => {
  it('names the instance of every session and event, and filters by it', async () => {
    const all = await json<{ sessions: { id: number; instance: string }[]; total: number }>(
      await api('/sessions'),
    );
    expect(all.sessions.map((s) => [s.id, s.instance])).toEqual([
      [ids.remote, 'cluster-b'],
      [ids.remoteDone, 'cluster-b'],
      [ids.local, 'local'],
    ]);
    const mine = await json<{ sessions: { id: number }[]; total: number }>(
      await api('/sessions?instance=local'),
    );
    expect(mine).toMatchObject({ total: 1, sessions: [{ id: ids.local }] });
    expect(await json<{ instance: string }>(await api(`/sessions/${ids.remote}`))).toMatchObject({
      instance: 'cluster-b',
      events: [{ instance: 'cluster-b' }],
    });

    const events = await json<{ events: { message: string; instance: string }[]; total: number }>(
      await api('/events?instance=cluster-b'),
    );
    expect(events).toMatchObject({
      total: 1,
      events: [{ message: 'seen on cluster-b', instance: 'cluster-b' }],
    });
  });

  it('groups one instance’s events alone: counts, first and last seen, acknowledgement', async () => {
    const at = h.clock.now();
    const repeat = (stores: Stores, offset: number) =>
      stores.events.insert({
        sessionId: null,
        source: 'agent',
        level: 'critical',
        service: 'nas',
        message: 'pool degraded',
        createdAt: at + offset,
      });
    repeat(h.stores, 1_000);
    repeat(other, 2_000);
    repeat(other, 3_000);
    type Groups = {
      groups: {
        id: number;
        message: string;
        count: number;
        first_seen: string;
        last_seen: string;
        acked: boolean;
      }[];
      total: number;
    };
    const iso = (ms: number) => new Date(ms).toISOString();
    const fleet = await json<Groups>(await api('/event-groups?service=nas'));
    expect(fleet.groups).toMatchObject([
      { count: 3, first_seen: iso(at + 1_000), last_seen: iso(at + 3_000) },
    ]);
    const b = await json<Groups>(await api('/event-groups?service=nas&instance=cluster-b'));
    expect(b).toMatchObject({
      total: 1,
      groups: [{ count: 2, first_seen: iso(at + 2_000), last_seen: iso(at + 3_000) }],
    });
    const local = await json<Groups>(await api('/event-groups?service=nas&instance=local'));
    expect(local.groups).toMatchObject([{ count: 1, last_seen: iso(at + 1_000) }]);
    // Each instance sees only the groups it raised events in.
    const bAll = await json<Groups>(await api('/event-groups?instance=cluster-b'));
    expect(bAll.groups.map((g) => g.message).sort()).toEqual([
      'pool degraded',
      'seen on cluster-b',
    ]);
    expect((await json<Groups>(await api('/event-groups?instance=nowhere'))).total).toBe(0);

    // Acknowledged, the group is closed on both; a new occurrence on cluster-b reopens it
    // there, and local, which saw nothing new, keeps it closed.
    const open = async (instance: string) =>
      (await json<Groups>(await api(`/event-groups?service=nas&instance=${instance}`))).groups;
    await h.stores.eventGroups.acknowledge(fleet.groups[0]!.id, 'operator', at + 3_000);
    expect([await open('local'), await open('cluster-b')]).toEqual([[], []]);
    repeat(other, 4_000);
    expect(await open('cluster-b')).toMatchObject([{ count: 3, acked: false }]);
    expect(await open('local')).toEqual([]);
    expect(
      (await json<Groups>(await api('/event-groups?service=nas&instance=local&acked=show'))).groups,
    ).toMatchObject([{ count: 1, acked: true }]);

    // The Events page's grouped view takes the same filter.
    const html = await (await get('/events?view=groups&instance=cluster-b&acked=show')).text();
    expect(html).toContain('seen on cluster-b');
    expect(html).not.toContain('seen here');
  });

  it('refuses an instance filter that is no instance name, naming the field', async () => {
    for (const path of ['/sessions?instance=a%20b', '/events?instance=%3Cx%3E']) {
      const res = await api(path);
      expect(res.status).toBe(400);
      expect((await json<{ error: { field: string } }>(res)).error.field).toBe('instance');
    }
  });

  it('refuses to stop a session that runs on another instance, saying where', async () => {
    const res = await api(`/sessions/${ids.remote}/stop`, { method: 'POST' });
    expect(res.status).toBe(409);
    expect((await json<{ error: unknown }>(res)).error).toEqual({
      code: 'other_instance',
      message: `session ${ids.remote} runs on instance cluster-b; stop it there`,
    });
    expect(h.runner.stops).toBe(0);
    // One that has ended is simply not running, wherever it ran.
    const ended = await api(`/sessions/${ids.remoteDone}/stop`, { method: 'POST' });
    expect(ended.status).toBe(409);
    expect((await json<{ error: { code: string } }>(ended)).error.code).toBe('not_running');
  });
});

describe('the pages', () => {
  it('shows the instance on each session, with a filter of the known instances', async () => {
    const html = await (await get('/sessions')).text();
    expect(html).toContain('<option value="cluster-b" >cluster-b</option>');
    expect(html).toContain('<option value="local" >local</option>');
    expect(html).toContain(
      '<td><a href="/sessions?instance=cluster-b" title="sessions of this instance">cluster-b</a></td>',
    );
    const filtered = await (await get('/sessions?instance=cluster-b')).text();
    expect(filtered).toContain('<option value="cluster-b" selected>cluster-b</option>');
    expect(filtered).toContain(`id="run-${ids.remote}"`);
    expect(filtered).not.toContain(`id="run-${ids.local}"`);
    // The 5 s refresh keeps the filter.
    expect(filtered).toContain('hx-get="/sessions/rows?instance=cluster-b&amp;page=1"');
  });

  it('shows the instance on each event, with a filter of the known instances', async () => {
    const html = await (await get('/events?instance=local')).text();
    expect(html).toContain('<option value="local" selected>local</option>');
    expect(html).toContain('<option value="cluster-b" >cluster-b</option>');
    expect(html).toContain('seen here');
    expect(html).not.toContain('seen on cluster-b');
    expect(html).toMatch(/<td><a href="\/sessions\/\d+">#\d+<\/a><\/td>\s*<td>local<\/td>/);
  });

  it('says where another instance’s running session can be followed and stopped', async () => {
    const html = await (await get(`/sessions/${ids.remote}`)).text();
    expect(html).toContain('runs on instance cluster-b: its live log, and Stop,');
    expect(html).not.toContain(`hx-post="/sessions/${ids.remote}/stop"`);
    const res = await h.request(`/sessions/${ids.remote}/stop`, {
      method: 'POST',
      headers: {
        Cookie: auth.cookie,
        'X-CSRF-Token': auth.csrf,
        'HX-Request': 'true',
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: '',
    });
    expect(res.status).toBe(409);
    expect(await res.text()).toContain(
      `session ${ids.remote} runs on instance cluster-b; stop it there`,
    );
  });
});
