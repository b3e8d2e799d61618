/**
 * The dashboard and API for the memory tools (issue 8): provenance and importance on the
 * Memories page, the importance and archive filters, archive, restore and promotion, and the
 * memory tool calls a session made.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { assistantBlocks, init } from '../helpers/stream.js';
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

const hx = (extra: Record<string, string> = {}) => htmxHeaders(auth, extra);
const page = async (path: string) =>
  (await h.request(path, { headers: { Cookie: auth.cookie } })).text();
const api = (path: string, init: RequestInit = {}) =>
  h.request(`/api/v1${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${TOKEN}`, ...(init.headers as Record<string, string>) },
  });
const json = async (res: Response) => (await res.json()) as Record<string, unknown>;

/** A memory written by a memory tool in a session, as the MCP server writes it. */
async function toolMemory(observation: string, service = 'jellyfin', importance?: 'high' | 'core') {
  const sessionId = h.stores.sessions.start({
    trigger: 'manual',
    tier: 2,
    startedAt: h.clock.now(),
  });
  const out = await h.keeper.observe({
    service,
    category: 'timing',
    observation,
    sessionId,
    tier: 2,
    source: 'tool',
    sourceRef: 'memory_add toolu_01',
    ...(importance ? { importance } : {}),
  });
  return { memory: out.memory, sessionId };
}

describe('memories page: provenance, importance, archive', () => {
  it('shows importance and where each memory came from, and suggests core at 0.8', async () => {
    const { memory, sessionId } = await toolMemory(
      'Needs the NFS share mounted first',
      'jellyfin',
      'high',
    );
    h.keeper.reinforce(memory.id, { sessionId, evidence: 'saw it wait on mnt-media.mount' });
    const html = await page('/memories');
    expect(html).toContain('<span class="badge importance high">high +0.1 (0.8)</span>');
    expect(html).toContain(
      `memory tool in <a href="/sessions/${sessionId}">session ${sessionId}</a>`,
    );
    expect(html).toContain('title="memory_add toolu_01"');
    expect(html).toContain('Importance high +0.1 (0.8): promote to core?');
    expect(html).toContain(`hx-put="/memories/${memory.id}" hx-vals='{"importance":"core"}'`);

    const history = await (
      await h.request(`/memories/${memory.id}/history`, { headers: hx() })
    ).text();
    expect(history).toContain(
      `memory tool in <a href="/sessions/${sessionId}">session #${sessionId}</a> (tier 2)`,
    );
    expect(history).toContain('important enough to promote to core');
    expect(history).toContain('<td class="wrap evidence">saw it wait on mnt-media.mount</td>');
    expect(history).toContain('<th>By</th>');
  });

  it('promotes to core from the suggestion: pinned, no archive button, no unpin', async () => {
    const { memory } = await toolMemory('Needs the NFS share mounted first');
    const res = await h.request(`/memories/${memory.id}`, {
      method: 'PUT',
      body: new URLSearchParams({ importance: 'core' }),
      headers: hx({ 'Content-Type': 'application/x-www-form-urlencoded' }),
    });
    expect(res.status).toBe(200);
    const row = await res.text();
    expect(row).toContain('<span class="badge importance core">core</span>');
    expect(row).not.toContain('/archive');
    expect(row).not.toContain('Unpin');
    expect(h.stores.memories.get(memory.id)).toMatchObject({ importance: 'core', pinned: true });
  });

  it('archives with the reason from the prompt, then restores; the filters find each state', async () => {
    const { memory } = await toolMemory('Takes 60s to start after a restart');
    const other = await toolMemory('Retry DNS once', 'pihole', 'high');
    const archived = await h.request(`/memories/${memory.id}/archive`, {
      method: 'POST',
      headers: hx({ 'HX-Prompt': 'replaced by the new server' }),
    });
    expect(archived.status).toBe(200);
    expect(archived.headers.get('HX-Trigger')).toBe('memories-changed');
    expect(await archived.text()).toContain(
      `Archived memory #${memory.id}: replaced by the new server.`,
    );
    expect(h.stores.memories.get(memory.id)).toMatchObject({
      active: false,
      archiveReason: 'replaced by the new server',
    });

    const onlyArchived = await (
      await h.request('/memories?archived=yes&status=all', { headers: hx() })
    ).text();
    expect(onlyArchived).toContain(`id="memory-${memory.id}"`);
    expect(onlyArchived).not.toContain(`id="memory-${other.memory.id}"`);
    expect(onlyArchived).toContain(
      '<span class="archive-reason">replaced by the new server</span>',
    );
    expect(onlyArchived).toContain(`hx-post="/memories/${memory.id}/restore"`);
    const high = await (await h.request('/memories?importance=high', { headers: hx() })).text();
    expect(high).toContain(`id="memory-${other.memory.id}"`);
    expect(high).not.toContain(`id="memory-${memory.id}"`);
    // The filters apply to a search too.
    const searched = await (
      await h.request('/memories?q=retry+dns&importance=normal', { headers: hx() })
    ).text();
    expect(searched).not.toContain(`id="memory-${other.memory.id}"`);
    const bad = await page('/memories?importance=urgent&archived=maybe');
    expect(bad).toContain(
      'Ignored: importance "urgent" (must be one of low, normal, high, core); archived "maybe" (must be yes, no, true or false).',
    );

    const restored = await h.request(`/memories/${memory.id}/restore`, {
      method: 'POST',
      headers: hx(),
    });
    expect(await restored.text()).toContain(`Restored memory #${memory.id}: active again.`);
    expect(h.stores.memories.get(memory.id)).toMatchObject({ active: true, archivedAt: null });
  });

  it('refuses to archive a core memory, changing nothing', async () => {
    const { memory } = await toolMemory('Holds the only copy of the photos', 'nas', 'core');
    const res = await h.request(`/memories/${memory.id}/archive`, {
      method: 'POST',
      headers: hx(),
    });
    expect(res.status).toBe(422);
    expect(await res.text()).toContain('core memories are never archived');
    expect(h.stores.memories.get(memory.id)).toMatchObject({ active: true, archivedAt: null });
  });
});

describe('API: importance and archive', () => {
  it('filters by importance and archive state, and names a bad filter', async () => {
    const a = await toolMemory('Takes 60s to start after a restart');
    const b = await toolMemory('Retry DNS once', 'pihole', 'high');
    await h.keeper.archive(a.memory.id, 'old');
    const ids = async (query: string) =>
      ((await json(await api(`/memories?${query}`))).memories as { id: number }[]).map((m) => m.id);
    expect(await ids('importance=high')).toEqual([b.memory.id]);
    expect(await ids('archived=true&status=all')).toEqual([a.memory.id]);
    expect(await ids('archived=false&status=all')).toEqual([b.memory.id]);
    const bad = await api('/memories?importance=urgent');
    expect(bad.status).toBe(400);
    expect((await json(bad)).error).toMatchObject({ field: 'importance' });
  });

  it('archives (with or without a reason) and restores; a core memory cannot be archived', async () => {
    const { memory } = await toolMemory('Takes 60s to start after a restart');
    const archived = await api(`/memories/${memory.id}/archive`, {
      method: 'POST',
      body: JSON.stringify({ reason: 'the NAS replaced it' }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(archived.status).toBe(200);
    expect(await json(archived)).toMatchObject({
      id: memory.id,
      active: false,
      archive_reason: 'the NAS replaced it',
      source: 'tool',
      importance: 'normal',
    });
    const restored = await api(`/memories/${memory.id}/restore`, { method: 'POST' });
    expect(await json(restored)).toMatchObject({ active: true, archived_at: null });
    const again = await api(`/memories/${memory.id}/restore`, { method: 'POST' });
    expect(again.status).toBe(422);
    const plain = await api(`/memories/${memory.id}/archive`, { method: 'POST' });
    expect(await json(plain)).toMatchObject({ archive_reason: 'archived by the operator' });

    const core = await toolMemory('Holds the only copy of the photos', 'nas', 'core');
    const refused = await api(`/memories/${core.memory.id}/archive`, { method: 'POST' });
    expect(refused.status).toBe(422);
    expect((await json(refused)).error).toMatchObject({ field: 'id' });
    expect((await api('/memories/999/archive', { method: 'POST' })).status).toBe(404);

    const history = (await json(await api(`/memories/${memory.id}/history`))).history as {
      action: string;
      source: string | null;
      evidence: string | null;
    }[];
    expect(history.map((x) => [x.action, x.source, x.evidence])).toEqual([
      ['created', 'tool', null],
      ['archived', 'operator', 'the NAS replaced it'],
      ['restored', 'operator', null],
      ['archived', 'operator', 'archived by the operator'],
    ]);
  });

  it('sets importance with PUT, naming a bad value', async () => {
    const { memory } = await toolMemory('Takes 60s to start after a restart');
    const put = (body: unknown) =>
      api(`/memories/${memory.id}`, {
        method: 'PUT',
        body: JSON.stringify(body),
        headers: { 'Content-Type': 'application/json' },
      });
    expect(await json(await put({ importance: 'high' }))).toMatchObject({ importance: 'high' });
    const bad = await put({ importance: 'urgent' });
    expect(bad.status).toBe(422);
    expect((await json(bad)).error).toMatchObject({ field: 'importance' });
    expect(h.stores.memories.get(memory.id)!.importance).toBe('high');
  });
});

describe('session page: memory tool calls', () => {
  it('lists the memory tool calls the session made, with arguments and answers, from its log', async () => {
    const id = h.stores.sessions.start({
      trigger: 'manual',
      tier: 1,
      startedAt: h.clock.now(),
      logPath: 'sessions/7.ndjson',
    });
    h.stores.sessions.finish(id, { status: 'completed', endedAt: h.clock.now() });
    const result = (toolUseId: string, content: unknown, isError = false) =>
      JSON.stringify({
        type: 'user',
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: toolUseId, content, is_error: isError }],
        },
        parent_tool_use_id: null,
      });
    mkdirSync(join(h.dataDir, 'sessions'), { recursive: true });
    writeFileSync(
      join(h.dataDir, 'sessions/7.ndjson'),
      [
        init(),
        assistantBlocks([
          {
            type: 'tool_use',
            id: 'toolu_q',
            name: 'mcp__watchkeeper__memory_query',
            input: { query: 'jellyfin <start>', scope: 'notes' },
          },
        ]),
        result('toolu_q', [{ type: 'text', text: '1 result in memory for "jellyfin <start>"' }]),
        assistantBlocks([
          { type: 'tool_use', id: 'toolu_b', name: 'Bash', input: { command: 'uptime' } },
        ]),
        result('toolu_b', 'up 3 days'),
        assistantBlocks([
          {
            type: 'tool_use',
            id: 'toolu_a',
            name: 'mcp__watchkeeper__memory_add',
            input: { content: 42 },
          },
        ]),
        result('toolu_a', 'expected text at content', true),
      ].join('\n'),
    );
    const html = await page(`/sessions/${id}`);
    const table = html.slice(html.indexOf('<table id="memory-tool-calls">'));
    expect(table).toContain('<td class="nowrap">memory_query</td>');
    expect(table).toContain('<span class="muted">query:</span> jellyfin &lt;start&gt;');
    expect(table).toContain('1 result in memory for &quot;jellyfin &lt;start&gt;&quot;');
    expect(table).toContain('<tr class="critical">');
    expect(table).toContain('expected text at content');
    expect(table.slice(0, table.indexOf('</table>'))).not.toContain('uptime');
  });

  it('reads a growing log on from where it stopped, and finds a call far back in a large one', async () => {
    const id = h.stores.sessions.start({
      trigger: 'manual',
      tier: 1,
      startedAt: h.clock.now(),
      logPath: 'sessions/8.ndjson',
    });
    h.stores.sessions.finish(id, { status: 'completed', endedAt: h.clock.now() });
    const call = (toolUseId: string, query: string) =>
      assistantBlocks([
        {
          type: 'tool_use',
          id: toolUseId,
          name: 'mcp__watchkeeper__memory_query',
          input: { query },
        },
      ]);
    const answer = (toolUseId: string, text: string) =>
      JSON.stringify({
        type: 'user',
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: toolUseId, content: text }],
        },
        parent_tool_use_id: null,
      });
    mkdirSync(join(h.dataDir, 'sessions'), { recursive: true });
    const file = join(h.dataDir, 'sessions/8.ndjson');
    // The first call, then 2 MB of other lines: far beyond the page of the log the page shows.
    const filler = Array.from({ length: 10_000 }, (_, i) =>
      assistantBlocks([{ type: 'text', text: `filler ${i} ${'f'.repeat(150)}` }]),
    );
    writeFileSync(file, `${[call('toolu_1', 'first question'), ...filler].join('\n')}\n`);
    const before = await page(`/sessions/${id}`);
    expect(before).toContain('first question');
    expect(before).toContain('<span class="muted">no answer</span>');
    expect(before).not.toContain('>filler 0 ');
    appendFileSync(
      file,
      `${[answer('toolu_1', 'the first answer'), call('toolu_2', 'second question')].join('\n')}\n`,
    );
    const after = await page(`/sessions/${id}`);
    const table = after.slice(
      after.indexOf('<table id="memory-tool-calls">'),
      after.indexOf('</table>', after.indexOf('<table id="memory-tool-calls">')),
    );
    expect(table).toContain('first question');
    expect(table).toContain('the first answer');
    expect(table).toContain('second question');
    expect(table.match(/<td class="nowrap">memory_query<\/td>/g)).toHaveLength(2);
  });

  it('says when the session called no memory tool', async () => {
    const id = h.stores.sessions.start({ trigger: 'manual', tier: 1, startedAt: h.clock.now() });
    h.stores.sessions.finish(id, { status: 'completed', endedAt: h.clock.now() });
    expect(await page(`/sessions/${id}`)).toContain('This session called no memory tool.');
  });
});
