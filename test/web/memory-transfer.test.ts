/**
 * Export, import and merge on the dashboard and the API, driven in-process through the real app
 * (authentication, CSRF and body limits included) over a real database.
 */
import { describe, expect, it } from 'vitest';

import { seedMemory } from '../helpers/db.js';
import {
  eachTestSignedIn,
  EXPORT_WITH_A_BAD_LINE,
  htmxHeaders,
  type SignedIn,
  TOKEN,
  type WebHarness,
} from '../helpers/web.js';

let h: WebHarness;
let auth: SignedIn;
eachTestSignedIn((web) => ({ h, auth } = web));

const bearer = { Authorization: `Bearer ${TOKEN}` };

async function seed() {
  const a = seedMemory(h, {
    service: 'jellyfin',
    category: 'timing',
    observation: 'takes 60 s to start, "usually"',
    confidence: 0.8,
  });
  const b = seedMemory(h, {
    service: 'jellyfin',
    category: 'behavior',
    observation: 'logs every request twice',
  });
  const c = seedMemory(h, {
    service: 'caddy',
    category: 'maintenance',
    observation: '=renews certificates',
  });
  await h.keeper.deactivate([b.id]);
  return { a, b, c };
}

describe('export', () => {
  it('streams the current filter as JSONL, and the page links carry the filter', async () => {
    const { a } = await seed();
    const page = await (
      await h.request('/memories?service=jellyfin&status=active', {
        headers: { Cookie: auth.cookie },
      })
    ).text();
    const link = /href="(\/memories\/export\?format=jsonl[^"]*)"/
      .exec(page)![1]!
      .replace(/&amp;/g, '&');
    expect(link).toContain('service=jellyfin');
    const res = await h.request(link, { headers: { Cookie: auth.cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(
      /attachment; filename="watchkeeper-memories-\d{4}-\d\d-\d\d\.jsonl"/,
    );
    const lines = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ format: 'watchkeeper-memory/1', memories: 1 });
    const memories = lines.filter((l) => l.type === 'memory');
    expect(memories.map((m) => m.id)).toEqual([a.id]);
    expect(memories[0]).toMatchObject({
      text: 'takes 60 s to start, "usually"',
      history: [expect.objectContaining({ action: 'created' })],
    });
  });

  it('exports CSV with quoting and formula-safe cells; a bad filter is a 400 naming it', async () => {
    await seed();
    const res = await h.request('/api/v1/memories/export?format=csv&status=all', {
      headers: bearer,
    });
    expect(res.headers.get('content-type')).toContain('text/csv');
    const text = await res.text();
    expect(text.split('\r\n')[0]).toMatch(/^id,service,category,text,confidence/);
    expect(text).toContain('"takes 60 s to start, ""usually"""');
    expect(text).toContain('"\t=renews certificates"');
    expect(text.trim().split('\r\n')).toHaveLength(4);
    const bad = await h.request('/api/v1/memories/export?format=xml', { headers: bearer });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { field: string } }).error.field).toBe('format');
  });
});

describe('import', () => {
  const file = EXPORT_WITH_A_BAD_LINE;

  it('previews a dry run on the dashboard, then imports on confirmation', async () => {
    const formPage = await h.request('/memories/import', { headers: { Cookie: auth.cookie } });
    expect(await formPage.text()).toContain(
      'hx-post="/memories/import" hx-encoding="multipart/form-data"',
    );
    const form = new FormData();
    form.append('file', new File([file], 'memories.jsonl', { type: 'application/x-ndjson' }));
    const preview = await h.request('/memories/import', {
      method: 'POST',
      body: form,
      headers: htmxHeaders(auth),
    });
    expect(preview.status).toBe(200);
    const html = await preview.text();
    expect(html).toContain('Dry run of memories.jsonl');
    expect(html).toMatch(
      /<td class="num">3<\/td><td>line<\/td><td>refused<\/td><td><\/td><td>not JSON/,
    );
    expect(await h.stores.memories.count({ status: 'all' })).toBe(0);
    const token = /name="token" value="([0-9a-f]+)"/.exec(html)![1]!;

    const done = await h.request('/memories/import/confirm', {
      method: 'POST',
      body: new URLSearchParams({ token }),
      headers: htmxHeaders(auth, { 'Content-Type': 'application/x-www-form-urlencoded' }),
    });
    expect(await done.text()).toContain('Imported memories.jsonl');
    expect(h.stores.memories.list({ status: 'all' }).map((m) => m.observation)).toEqual([
      'vacuum runs nightly at 02:00',
    ]);
    // The token is spent: confirming again imports nothing twice.
    const again = await h.request('/memories/import/confirm', {
      method: 'POST',
      body: new URLSearchParams({ token }),
      headers: htmxHeaders(auth, { 'Content-Type': 'application/x-www-form-urlencoded' }),
    });
    expect(again.status).toBe(422);
    expect(await h.stores.memories.count({ status: 'all' })).toBe(1);
  });

  it('refuses an upload without the CSRF token, and takes a file over the 32 KB form limit', async () => {
    const form = new FormData();
    form.append('file', new File([file], 'memories.jsonl'));
    const forged = await h.request('/memories/import', {
      method: 'POST',
      body: form,
      headers: { Cookie: auth.cookie, 'HX-Request': 'true' },
    });
    expect(forged.status).toBe(403);
    const big = [
      file.split('\n')[0],
      ...Array.from({ length: 400 }, (_, i) =>
        JSON.stringify({
          type: 'memory',
          text: `memory number ${i} ${'x'.repeat(100)}`,
          category: 'behavior',
          confidence: 0.6,
          created_at: '2026-01-01T00:00:00.000Z',
        }),
      ),
    ].join('\n');
    expect(big.length).toBeGreaterThan(32 * 1024);
    const res = await h.request('/api/v1/memories/import?dry_run=true', {
      method: 'POST',
      body: big,
      headers: { ...bearer, 'Content-Type': 'application/x-ndjson' },
    });
    expect(res.status).toBe(200);
    const report = (await res.json()) as { dry_run: boolean; counts: Record<string, number> };
    expect(report).toMatchObject({ dry_run: true, counts: { created: 400, refused: 0 } });
    expect(await h.stores.memories.count({ status: 'all' })).toBe(0);
  });

  it('does not bring back what the API or the dashboard deleted since the export', async () => {
    const { a, c } = await seed();
    const exported = await (
      await h.request('/api/v1/memories/export?status=all', { headers: bearer })
    ).text();
    expect(
      (await h.request(`/api/v1/memories/${a.id}`, { method: 'DELETE', headers: bearer })).status,
    ).toBe(204);
    const removed = await h.request(`/memories/${c.id}`, {
      method: 'DELETE',
      headers: htmxHeaders(auth),
    });
    expect(removed.status).toBe(200);
    const post = (dry: boolean) =>
      h.request(`/api/v1/memories/import${dry ? '?dry_run=true' : ''}`, {
        method: 'POST',
        body: exported,
        headers: { ...bearer, 'Content-Type': 'application/x-ndjson' },
      });
    type Report = { counts: Record<string, number>; items: { why: string; text: string }[] };
    for (const dry of [true, false]) {
      const report = (await (await post(dry)).json()) as Report;
      expect(report.counts).toEqual({ created: 0, reinforced: 0, skipped: 3, refused: 0 });
      const why = (text: string) => report.items.find((i) => i.text === text)!.why;
      expect(why('takes 60 s to start, "usually"')).toMatch(
        new RegExp(`^deleted here \\(memory #${a.id}, .* UTC by API token\\); not brought back$`),
      );
      expect(why('=renews certificates')).toMatch(
        /^deleted here \(memory #\d+, .* UTC by .*dashboard.*\)/,
      );
    }
    expect(h.stores.memories.list({ status: 'all' }).map((m) => m.observation)).toEqual([
      'logs every request twice',
    ]);
  });

  it('imports an MCP memory server file through the API, and refuses a file of neither kind', async () => {
    const mcp = JSON.stringify({
      type: 'entity',
      name: 'caddy',
      entityType: 'service',
      observations: ['Renews certificates on its own'],
    });
    const res = await h.request('/api/v1/memories/import', {
      method: 'POST',
      body: mcp,
      headers: { ...bearer, 'Content-Type': 'text/plain' },
    });
    expect(await res.json()).toMatchObject({
      format: 'mcp-memory',
      observations: { created: 1 },
      entities: { created: 1 },
    });
    expect(h.stores.memories.list({ service: 'caddy' }).map((m) => m.observation)).toEqual([
      'Renews certificates on its own',
    ]);
    const neither = await h.request('/api/v1/memories/import', {
      method: 'POST',
      body: 'hello',
      headers: { ...bearer, 'Content-Type': 'text/plain' },
    });
    expect(neither.status).toBe(422);
  });
});

describe('merge', () => {
  it('merges the selected memories into the first from the bulk bar, with the prompt as wording', async () => {
    const { a, b, c } = await seed();
    const res = await h.request('/memories/bulk/merge', {
      method: 'POST',
      body: new URLSearchParams([
        ['ids', String(a.id)],
        ['ids', String(b.id)],
        ['ids', String(c.id)],
      ]),
      headers: htmxHeaders(auth, {
        'Content-Type': 'application/x-www-form-urlencoded',
        'HX-Prompt': 'Jellyfin needs a minute to start',
      }),
    });
    expect(await res.text()).toContain(
      `Merged #${b.id}, #${c.id} into #${a.id}: Jellyfin needs a minute to start`,
    );
    expect(res.headers.get('HX-Trigger')).toBe('memories-changed');
    expect(h.stores.memories.get(a.id)).toMatchObject({
      observation: 'Jellyfin needs a minute to start',
      confidence: 0.8,
    });
    expect(h.stores.portability.mergedFrom(a.id)).toEqual([b.id, c.id]);
    const history = await (
      await h.request(`/memories/${a.id}/history`, { headers: htmxHeaders(auth) })
    ).text();
    expect(history).toContain(`merged with <a href="#memory-${b.id}"`);
  });

  it('merges through the API, naming a missing id and refusing a single one', async () => {
    const { a, b } = await seed();
    const post = (body: unknown) =>
      h.request('/api/v1/memories/merge', {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { ...bearer, 'Content-Type': 'application/json' },
      });
    const missing = await post({ ids: [a.id, 999] });
    expect(missing.status).toBe(404);
    const single = await post({ ids: [a.id] });
    expect(single.status).toBe(422);
    expect(((await single.json()) as { error: { message: string } }).error.message).toContain(
      'at least two',
    );
    const ok = await post({ ids: [b.id, a.id], confidence: 0.65 });
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as {
      survivor: { id: number; confidence: number; active: boolean };
      merged: { id: number; archive_reason: string }[];
    };
    expect(body.survivor).toMatchObject({ id: b.id, confidence: 0.65, active: true });
    expect(body.merged).toEqual([
      expect.objectContaining({ id: a.id, archive_reason: `merged into #${b.id}` }),
    ]);
  });
});
