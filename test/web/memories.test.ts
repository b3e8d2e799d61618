import { describe, expect, it } from 'vitest';

import { eachTestSignedIn, htmxHeaders, type SignedIn, type WebHarness } from '../helpers/web.js';
import { seedMemory } from '../helpers/db.js';

let h: WebHarness;
let auth: SignedIn;
eachTestSignedIn((web) => ({ h, auth } = web));

const hx = (extra: Record<string, string> = {}) => htmxHeaders(auth, extra);
const form = (fields: Record<string, string>) => ({
  body: new URLSearchParams(fields),
  headers: hx({ 'Content-Type': 'application/x-www-form-urlencoded' }),
});
const add = (observation: string, service: string | null = 'jellyfin', confidence = 0.7) =>
  seedMemory(h, { service, category: 'timing', observation, confidence });

describe('memories page', () => {
  it('lists memories with service, category, observation, confidence, status and source, inactive greyed', async () => {
    const a = add('Takes 60s to start', 'jellyfin', 0.9);
    const b = add('Needs VACUUM weekly', 'postgres');
    await h.keeper.deactivate([b.id]);
    const html = await (await h.request('/memories', { headers: { Cookie: auth.cookie } })).text();
    expect(html).toContain('<title>Memories · watchkeeper</title>');
    expect(html).toContain(`id="memory-${a.id}">`);
    expect(html).toContain(`id="memory-${b.id}" class="inactive"`);
    expect(html).toContain('Takes 60s to start');
    expect(html).toContain('>0.9<');
    expect(html).toMatch(/Overview[\s\S]*Sessions[\s\S]*Events[\s\S]*Memories[\s\S]*Cooldowns/);
  });

  it('shows text beyond Latin-1 whole, in the page and its table, served again from the cache', async () => {
    add('Größe des Caches ⋯ 50 GiB, キャッシュ満杯 😬 (was 40 GiB)');
    const full = async () =>
      (await h.request('/memories', { headers: { Cookie: auth.cookie } })).text();
    const first = await full();
    expect(first).toContain('Größe des Caches ⋯ 50 GiB, キャッシュ満杯 😬 (was 40 GiB)');
    expect(first).toContain('<title>Memories · watchkeeper</title>');
    expect(first).toMatch(/<\/html>\s*$/);
    // The table comes from the cache now: the same bytes in the page and as the htmx partial.
    const again = await full();
    const table = (html: string) => html.slice(html.indexOf('<div id="memory-table"'));
    const partial = await (await h.request('/memories', { headers: hx() })).text();
    expect(table(again).startsWith(partial.trim())).toBe(true);
    expect(partial).toContain('キャッシュ満杯 😬');
  });

  it('filters by service, category and status, and answers htmx with the table partial only', async () => {
    add('Takes 60s to start', 'jellyfin');
    add('Retry DNS once', null);
    const res = await h.request('/memories?service=general&status=active', { headers: hx() });
    const html = await res.text();
    expect(html.startsWith('<div id="memory-table"')).toBe(true);
    expect(html).toContain('Retry DNS once');
    expect(html).not.toContain('Takes 60s to start');
  });

  it('creates a memory; a bad field is an inline error and stores nothing', async () => {
    const ok = await h.request('/memories', {
      method: 'POST',
      ...form({
        category: 'timing',
        service: 'Caddy',
        observation: 'Reloads config in 2s',
        confidence: '0.8',
      }),
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('HX-Trigger')).toBe('memories-changed');
    expect(h.stores.memories.list()).toMatchObject([
      { service: 'caddy', observation: 'Reloads config in 2s', confidence: 0.8, tier: 0 },
    ]);
    const bad = await h.request('/memories', {
      method: 'POST',
      ...form({ category: 'gossip', observation: 'x' }),
    });
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain('category: &quot;gossip&quot; is not one of timing');
    expect(await h.stores.memories.count({ status: 'all' })).toBe(1);
  });

  it('edits inline; an out-of-range confidence returns the edit row with the error and changes nothing', async () => {
    const m = add('Takes 60s to start');
    const edit = await (await h.request(`/memories/${m.id}/edit`, { headers: hx() })).text();
    expect(edit).toContain('class="editing"');
    const bad = await h.request(`/memories/${m.id}`, {
      method: 'PUT',
      ...form({ observation: 'Takes 90s', confidence: '1.7' }),
    });
    expect(bad.status).toBe(422);
    const body = await bad.text();
    expect(body).toContain('class="editing"');
    expect(body).toContain('confidence: must be a number from 0 to 1');
    expect(body).toContain('Takes 90s'); // the operator's text is kept in the form
    expect(h.stores.memories.get(m.id)).toMatchObject({
      observation: 'Takes 60s to start',
      confidence: 0.7,
    });
    const ok = await h.request(`/memories/${m.id}`, {
      method: 'PUT',
      ...form({ observation: 'Takes 90s to start', confidence: '0.95' }),
    });
    expect(await ok.text()).toContain('Takes 90s to start');
    expect(h.stores.memories.get(m.id)).toMatchObject({
      observation: 'Takes 90s to start',
      confidence: 0.95,
    });
  });

  it('deactivates, refuses to reactivate below 0.3, reactivates at 0.3 or more, pins', async () => {
    const m = add('Takes 60s to start', 'jellyfin', 0.7);
    await h.request(`/memories/${m.id}`, { method: 'PUT', ...form({ active: 'false' }) });
    expect(h.stores.memories.get(m.id)!.active).toBe(false);
    const low = await h.request(`/memories/${m.id}`, {
      method: 'PUT',
      ...form({ active: 'true', confidence: '0.2' }),
    });
    expect(low.status).toBe(422);
    expect(h.stores.memories.get(m.id)).toMatchObject({ active: false, confidence: 0.7 });
    await h.request(`/memories/${m.id}`, {
      method: 'PUT',
      ...form({ active: 'true', confidence: '0.5' }),
    });
    expect(h.stores.memories.get(m.id)).toMatchObject({ active: true, confidence: 0.5 });
    await h.request(`/memories/${m.id}`, { method: 'PUT', ...form({ pinned: 'true' }) });
    expect(h.stores.memories.get(m.id)!.pinned).toBe(true);
    const history = await (await h.request(`/memories/${m.id}/history`, { headers: hx() })).text();
    expect(history).toContain('<svg class="spark"');
    expect(history.match(/<td>(created|deactivated|edited|reactivated|pinned)<\/td>/g)).toEqual([
      '<td>created</td>',
      '<td>deactivated</td>',
      '<td>edited</td>',
      '<td>reactivated</td>',
      '<td>pinned</td>',
    ]);
  });

  it('shows a supersession: the old row says by which memory, its history links to the successor', async () => {
    await h.knowledge.memory.add({
      service: 'jellyfin',
      category: 'timing',
      observation: 'Takes 60s to start after a restart',
    });
    const outcome = await h.request('/memories', {
      method: 'POST',
      ...form({
        service: 'jellyfin',
        category: 'timing',
        observation: 'Takes 5 minutes to start after a restart',
      }),
    });
    const created = h.stores.memories.list({ status: 'active' })[0]!;
    expect(await outcome.text()).toContain(
      `Memory ${created.id} added; it supersedes an older one that said otherwise.`,
    );
    const old = h.stores.memories.list({ status: 'inactive' })[0]!;
    expect(old.supersededBy).toBe(created.id);

    const table = await (await h.request('/memories?status=all', { headers: hx() })).text();
    const row = new RegExp(`<tr id="memory-${old.id}" class="inactive">[\\s\\S]*?</tr>`).exec(
      table,
    )?.[0];
    expect(row).toContain(
      `superseded by <a href="#memory-${created.id}" hx-get="/memories/${created.id}/history"`,
    );
    const history = await (
      await h.request(`/memories/${old.id}/history`, { headers: hx() })
    ).text();
    expect(history).toContain(
      `<td>superseded by <a href="#memory-${created.id}" hx-get="/memories/${created.id}/history" hx-target="#history-panel" hx-swap="innerHTML">memory ${created.id}</a></td>`,
    );
    expect(history).toContain('Takes 5 minutes to start after a restart'); // the new wording
    const successor = await (
      await h.request(`/memories/${created.id}/history`, { headers: hx() })
    ).text();
    expect(successor).not.toContain('superseded by');
  });

  it('deletes one memory, and bulk-deletes 500 selected memories in one request', async () => {
    const one = add('Delete me');
    expect(
      (await h.request(`/memories/${one.id}`, { method: 'DELETE', headers: hx() })).status,
    ).toBe(200);
    expect(h.stores.memories.get(one.id)).toBeNull();
    const ids = Array.from(
      { length: 600 },
      (_, i) => add(`observation number ${i}`, `svc-${i}`).id,
    );
    const selected = ids.slice(0, 500);
    const query = selected.map((id) => `ids=${id}`).join('&');
    const res = await h.request(`/memories/bulk?${query}`, { method: 'DELETE', headers: hx() });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Deleted 500 memories.');
    expect(await h.stores.memories.count({ status: 'all' })).toBe(100);
  });

  it('bulk-deactivates the selection', async () => {
    const ids = [add('one', 'a').id, add('two', 'b').id, add('three', 'c').id];
    const res = await h.request('/memories/bulk/deactivate', {
      method: 'POST',
      ...form({}),
      body: new URLSearchParams(ids.slice(0, 2).map((id): [string, string] => ['ids', String(id)])),
    });
    expect(await res.text()).toContain('Deactivated 2 memories.');
    expect(await h.stores.memories.count({ status: 'inactive' })).toBe(2);
  });
});

describe('memories API', () => {
  const api = (path: string, init: RequestInit = {}) =>
    h.request(`/api/v1${path}`, {
      ...init,
      headers: {
        Authorization: 'Bearer test-token-0123456789abcdef',
        'Content-Type': 'application/json',
        ...(init.headers as Record<string, string>),
      },
    });

  it('creates, reads, updates, lists, deletes and bulk-deletes, with field-named errors', async () => {
    const created = await api('/memories', {
      method: 'POST',
      body: JSON.stringify({
        category: 'dependency',
        service: 'caddy',
        observation: 'Starts after WireGuard',
      }),
    });
    expect(created.status).toBe(201);
    const m = (await created.json()) as { id: number; confidence: number; created_at: string };
    expect(m.confidence).toBe(0.7);
    expect(m.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const bad = await api(`/memories/${m.id}`, {
      method: 'PUT',
      body: JSON.stringify({ confidence: 'high' }),
    });
    expect(bad.status).toBe(422);
    expect(await bad.json()).toEqual({
      error: {
        code: 'invalid_input',
        message: 'confidence: must be a number from 0 to 1, got "high"',
        field: 'confidence',
      },
    });
    expect(
      (
        (await (
          await api(`/memories/${m.id}`, {
            method: 'PUT',
            body: JSON.stringify({ confidence: 0.9 }),
          })
        ).json()) as { confidence: number }
      ).confidence,
    ).toBe(0.9);
    const list = (await (await api('/memories?service=caddy')).json()) as {
      memories: unknown[];
      total: number;
    };
    expect(list.total).toBe(1);
    expect((await api('/memories/999999')).status).toBe(404);
    const more = [add('x1').id, add('x2').id];
    expect(
      await (
        await api('/memories/bulk', { method: 'DELETE', body: JSON.stringify({ ids: more }) })
      ).json(),
    ).toEqual({ deleted: 2 });
    expect((await api(`/memories/${m.id}`, { method: 'DELETE' })).status).toBe(204);
    const history = (await (await api(`/memories/${m.id}/history`)).json()) as {
      history: { action: string }[];
    };
    expect(history.history.map((x) => x.action)).toEqual(['created', 'edited', 'deleted']);
  });
});
