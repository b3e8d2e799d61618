/**
 * Memories of a fleet on the dashboard and the API: every instance's memories are listed, each
 * with its instance, filtered by instance; the operator shares and unshares (API, and the
 * dashboard with its CSRF token); the search finds only this instance's memories and the fleet's.
 */
import { describe, expect, it } from 'vitest';

import { FLEET } from '../../src/db/index.js';
import { type Category, DEFAULT_POLICY, nextDecayAt } from '../../src/memory/index.js';
import {
  eachTestSignedIn,
  htmxHeaders,
  type SignedIn,
  TOKEN,
  type WebHarness,
} from '../helpers/web.js';

let h: WebHarness;
let auth: SignedIn;
eachTestSignedIn((web) => ({ h, auth } = web));

const api = (path: string, init: RequestInit = {}) =>
  h.request(`/api/v1${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${TOKEN}`, ...(init.headers as Record<string, string>) },
  });
const json = async (res: Response) => (await res.json()) as Record<string, unknown>;

/** A memory of an instance, as that instance's sidecar writes it into the shared database. */
function written(instance: string, observation: string, category: Category = 'behavior') {
  const at = h.clock.now();
  const id = h.stores.memories.create({
    service: 'postgres',
    category,
    observation,
    confidence: 0.8,
    sessionId: null,
    tier: 1,
    at,
    nextDecayAt: nextDecayAt(at, at, DEFAULT_POLICY),
    instance,
  });
  return h.stores.memories.get(id)!;
}

describe('memories of a fleet', () => {
  it('shares and unshares through the API; the JSON says the instance and whether it is shared', async () => {
    const m = written('local', 'Postgres vacuum runs on Sundays');
    expect(await json(await api(`/memories/${m.id}`))).toMatchObject({
      instance: 'local',
      shared: false,
    });
    const shared = await api(`/memories/${m.id}/share`, { method: 'POST' });
    expect(shared.status).toBe(200);
    expect(await json(shared)).toMatchObject({ id: m.id, instance: FLEET, shared: true });
    const unshared = await api(`/memories/${m.id}/unshare`, { method: 'POST' });
    expect(await json(unshared)).toMatchObject({ id: m.id, instance: 'local', shared: false });
    const history = (await json(await api(`/memories/${m.id}/history`))).history as {
      action: string;
      evidence: string | null;
    }[];
    expect(history.map((e) => e.evidence)).toEqual([
      null,
      'shared with the fleet by instance local (learned by local)',
      'unshared: kept by instance local',
    ]);
    const missing = await api('/memories/999999/share', { method: 'POST' });
    expect(missing.status).toBe(404);
  });

  it("lists every instance's memories, filtered by ?instance, and refuses a bad instance name", async () => {
    written('local', 'Postgres listens on 5432 here');
    written('cluster-b', 'Postgres on cluster b has 64 GB of RAM');
    written(FLEET, 'Postgres minor upgrades need a restart');
    const instancesOf = async (query: string) =>
      ((await json(await api(`/memories${query}`))).memories as { instance: string }[]).map(
        (m) => m.instance,
      );
    expect((await instancesOf('')).sort()).toEqual(['cluster-b', 'fleet', 'local']);
    expect(await instancesOf('?instance=cluster-b')).toEqual(['cluster-b']);
    expect(await instancesOf('?instance=fleet')).toEqual(['fleet']);
    expect(await instancesOf('?instance=cluster-z')).toEqual([]);
    const bad = await api('/memories?instance=no%20spaces');
    expect(bad.status).toBe(400);
    expect(await json(bad)).toMatchObject({ error: { field: 'instance' } });
  });

  it("searches only this instance's memories and the fleet's", async () => {
    written('local', 'Postgres replication lags at night');
    written('cluster-b', 'Postgres replication on cluster b is synchronous');
    written(FLEET, 'Postgres replication slots must be dropped before an upgrade');
    const res = await api('/memories/search?q=postgres%20replication&status=all');
    const results = (await json(res)).results as { instance: string; observation: string }[];
    expect(results.map((r) => r.instance).sort()).toEqual(['fleet', 'local']);
  });

  it('shows the instance on each row and an instance filter with the instances in the store', async () => {
    written('local', 'Postgres listens on 5432 here');
    written('cluster-b', 'Postgres on cluster b has 64 GB of RAM');
    const html = await (await h.request('/memories', { headers: { Cookie: auth.cookie } })).text();
    expect(html).toContain('<select name="instance"');
    expect(html).toContain('<option value="cluster-b" >cluster-b</option>');
    expect(html).toContain('<option value="local" >local</option>');
    expect(html).toMatch(/<span class="badge instance"[^>]*>cluster-b<\/span>/);
    const filtered = await (
      await h.request('/memories?instance=cluster-b', { headers: htmxHeaders(auth) })
    ).text();
    expect(filtered).toContain('64 GB of RAM');
    expect(filtered).not.toContain('5432');
  });

  it('names no instance on a lone sidecar (list, filter, history); two instances do', async () => {
    const m = written('local', 'Postgres listens on 5432 here');
    const page = async () =>
      (await h.request('/memories', { headers: { Cookie: auth.cookie } })).text();
    const history = async () =>
      (await h.request(`/memories/${m.id}/history`, { headers: htmxHeaders(auth) })).text();
    const lone = await page();
    expect(lone).toContain('5432');
    expect(lone).not.toContain('class="badge instance');
    expect(lone).not.toContain('<select name="instance"');
    expect(await history()).not.toContain('<dt>Instance</dt>');

    written('cluster-b', 'Postgres on cluster b has 64 GB of RAM');
    const two = await page();
    expect(two).toMatch(/<span class="badge instance"[^>]*>local<\/span>/);
    expect(two).toContain('<select name="instance"');
    expect(await history()).toContain('<dt>Instance</dt>');
  });

  it('shares and unshares from the dashboard with the CSRF token, and refuses without it', async () => {
    const m = written('cluster-b', 'Postgres on cluster b has 64 GB of RAM');
    const history = await (
      await h.request(`/memories/${m.id}/history`, { headers: htmxHeaders(auth) })
    ).text();
    expect(history).toContain(`hx-post="/memories/${m.id}/share"`);

    const refused = await h.request(`/memories/${m.id}/share`, {
      method: 'POST',
      headers: { Cookie: auth.cookie, 'HX-Request': 'true' },
    });
    expect(refused.status).toBe(403);
    expect(h.stores.memories.get(m.id)!.instance).toBe('cluster-b');

    const shared = await h.request(`/memories/${m.id}/share`, {
      method: 'POST',
      headers: htmxHeaders(auth),
    });
    expect(shared.status).toBe(200);
    expect(shared.headers.get('HX-Trigger')).toBe('memories-changed');
    expect(await shared.text()).toContain(`Shared memory #${m.id} with the fleet`);
    expect(h.stores.memories.get(m.id)!.instance).toBe(FLEET);
    const row = await (
      await h.request(`/memories/${m.id}/row`, { headers: htmxHeaders(auth) })
    ).text();
    expect(row).toContain(`hx-post="/memories/${m.id}/unshare"`);

    // This dashboard's instance is `local`: unsharing gives the memory to it.
    const unshared = await h.request(`/memories/${m.id}/unshare`, {
      method: 'POST',
      headers: htmxHeaders(auth),
    });
    expect(await unshared.text()).toContain(
      `Memory #${m.id} is no longer shared: it belongs to local.`,
    );
    expect(h.stores.memories.get(m.id)!.instance).toBe('local');
  });
});
