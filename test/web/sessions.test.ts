import { copyFileSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { SessionFinish, SessionStart } from '../../src/db/index.js';
import { toMessage } from '../../src/stream/index.js';
import { assistantText, init, toolResult, toolUse } from '../helpers/stream.js';
import { TOKEN, type WebHarness, webHarness } from '../helpers/web.js';
import { unsafeMarkup, XSS_CORPUS } from '../helpers/xss.js';

const REAL = new URL('../fixtures/transcripts/real-cli-2.1.197.ndjson', import.meta.url);

let h: WebHarness;
let auth: { cookie: string; csrf: string };

async function setup(opts: Parameters<typeof webHarness>[0] = {}) {
  h = webHarness(opts);
  auth = await h.login();
}
afterEach(() => h.close());

const get = (path: string, headers: Record<string, string> = {}) =>
  h.request(path, { headers: { Cookie: auth.cookie, ...headers } });
const htmx = { 'HX-Request': 'true' };
const postForm = (
  path: string,
  body: Record<string, string>,
  headers: Record<string, string> = {},
) =>
  h.request(path, {
    method: 'POST',
    body: new URLSearchParams(body),
    headers: {
      Cookie: auth.cookie,
      'Content-Type': 'application/x-www-form-urlencoded',
      'X-CSRF-Token': auth.csrf,
      ...headers,
    },
  });
const api = (path: string, init: RequestInit = {}) =>
  h.request(`/api/v1${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${TOKEN}`, ...(init.headers as Record<string, string>) },
  });
const postJson = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  api(path, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', ...headers },
  });

/** The `error` object of a JSON error response. */
async function errorOf(res: Response) {
  return ((await res.json()) as { error: { code: string; message: string; field?: string } }).error;
}

/** A session row, finished unless `finish` is null. */
function session(start: Partial<SessionStart> = {}, finish: Partial<SessionFinish> | null = {}) {
  const startedAt = start.startedAt ?? h.clock.now();
  const id = h.stores.sessions.start({
    trigger: 'scheduled',
    tier: 1,
    model: 'haiku',
    ...start,
    startedAt,
  });
  if (finish) {
    h.stores.sessions.finish(id, { status: 'completed', endedAt: startedAt + 12_000, ...finish });
  }
  return id;
}

function publish(id: number, line: string) {
  h.feed.publish(id, { kind: 'message', message: toMessage(JSON.parse(line)) }, line.length);
}

/** Reads an SSE body until `done(text)` holds or the stream ends. */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  done: (text: string) => boolean,
  sofar = '',
): Promise<{ text: string; ended: boolean }> {
  const decoder = new TextDecoder();
  let text = sofar;
  while (!done(text)) {
    const chunk = await reader.read();
    if (chunk.done) return { text, ended: true };
    text += decoder.decode(chunk.value, { stream: true });
  }
  return { text, ended: false };
}

/** The events of an SSE body: one object per blank-line-separated block. */
function sseEvents(text: string) {
  return text
    .split('\n\n')
    .filter((b) => b.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const field = (name: string) =>
        lines.filter((l) => l.startsWith(`${name}: `)).map((l) => l.slice(name.length + 2));
      return { event: field('event')[0], id: field('id')[0], data: field('data'), lines };
    });
}

describe('GET /sessions', () => {
  beforeEach(() => setup());

  it('lists runs newest first, one row per chain, with the status, model, cost and duration of its sessions', async () => {
    const parent = session(
      { trigger: 'alert', model: 'haiku' },
      { status: 'escalated', costUsd: 0.0123, numTurns: 4 },
    );
    const child = session(
      { trigger: 'escalation', tier: 2, model: 'sonnet', parentSessionId: parent },
      { durationMs: 95_000 },
    );
    const sim = session({ trigger: 'manual', simulated: true }, { status: 'failed' });
    const running = session({ trigger: 'api' }, null);

    const res = await get('/sessions');
    expect(res.status).toBe(200);
    const html = await res.text();
    // One row per run; a chain's sessions follow it, first tier first.
    expect(html.match(/<tr class="run /g)).toHaveLength(3);
    const order = [running, sim, parent, child].map((id) =>
      html.indexOf(`href="/sessions/${id}">#${id}<`),
    );
    expect(order.every((pos, i) => pos > 0 && (i === 0 || pos > order[i - 1]!))).toBe(true);
    expect(html).toContain('<span class="badge escalated">escalated</span>');
    expect(html).toContain('<span class="badge running">running</span>');
    expect(html).toContain('<span class="badge sim">sim</span>');
    expect(html).toContain('$0.0123');
    expect(html).toContain('12.0 s'); // endedAt - startedAt
    expect(html).toContain('(CLI 1 min 35 s)'); // durationMs, beside the wall time
    expect(html).toContain(
      `<a href="/sessions/${parent}" title="escalated from">&uarr; #${parent}</a>`,
    );
    expect(html).toContain('>2 sessions</button>');
    expect(html).toContain('<span class="badge outcome failed">failed</span>');
    expect(html).toMatch(
      /<tbody id="session-rows" data-refresh hx-get="\/sessions\/rows\?page=1"\s+hx-trigger="every 5s/,
    );
    expect(html).toContain('action="/sessions/trigger"');
    expect(html).toContain(`name="_csrf" value="${auth.csrf}"`);
  });

  it('pages by 50 and refreshes only the rows for htmx', async () => {
    for (let i = 0; i < 51; i += 1) session();
    const first = await (await get('/sessions')).text();
    expect(first).toContain('href="/sessions?page=2"');
    expect(first).not.toContain('href="/sessions/1">#1<');
    const second = await (await get('/sessions?page=2')).text();
    expect(second).toContain('href="/sessions/1">#1<');
    expect(second).not.toContain('href="/sessions?page=3"');

    const rows = await (await get('/sessions/rows?page=2', htmx)).text();
    expect(rows.startsWith('<tbody id="session-rows"')).toBe(true);
    expect(rows).not.toContain('<html');
  });
});

describe('GET /sessions/:id', () => {
  beforeEach(() => setup());

  it('shows metadata, chain, response, events, memories and the log file', async () => {
    const root = session({ trigger: 'alert' }, { status: 'escalated', costUsd: 0.01 });
    const id = session(
      {
        trigger: 'escalation',
        tier: 2,
        model: 'sonnet',
        parentSessionId: root,
        logPath: 'sessions/2.ndjson',
      },
      {
        exitCode: 0,
        costUsd: 0.02,
        numTurns: 3,
        cliSessionId: 'cli-abc',
        response:
          'All good.\n[EVENT:warning:jellyfin] slow\n\n<script>alert(1)</script> [x](javascript:alert(1))',
      },
    );
    const grandchild = session(
      { trigger: 'escalation', tier: 3, parentSessionId: id },
      { costUsd: 0.03 },
    );
    h.stores.events.insert({
      sessionId: id,
      source: 'agent',
      level: 'warning',
      service: 'jellyfin',
      message: 'Health check <b>slow</b>',
      createdAt: h.clock.now(),
    });
    const created = h.stores.memories.create({
      service: 'jellyfin',
      category: 'timing',
      observation: 'Takes 60s to start',
      confidence: 0.7,
      sessionId: id,
      tier: 2,
      at: h.clock.now(),
      nextDecayAt: h.clock.now() + 1,
    });
    const older = h.stores.memories.create({
      service: null,
      category: 'behavior',
      observation: 'Backups run at 03:00',
      confidence: 0.6,
      sessionId: root,
      tier: 1,
      at: h.clock.now(),
      nextDecayAt: h.clock.now() + 1,
    });
    h.stores.memories.change([
      {
        id: older,
        action: 'reinforced',
        confidence: 0.75,
        active: true,
        sessionId: id,
        at: h.clock.now(),
      },
    ]);
    mkdirSync(join(h.dataDir, 'sessions'), { recursive: true });
    copyFileSync(REAL, join(h.dataDir, 'sessions/2.ndjson'));

    const res = await get(`/sessions/${id}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<dt>Exit code</dt><dd>0</dd>');
    expect(html).toContain('<code>cli-abc</code>');
    expect(html).toContain('(chain: $0.0600)');
    expect(html).toContain(`<a href="/sessions/${root}">#${root}</a>`);
    expect(html).toContain(`<a href="/sessions/${grandchild}">#${grandchild}</a>`);
    // The response as Markdown, with badges, and nothing executable.
    expect(html).toContain('<span class="marker warning">[EVENT:warning:jellyfin]</span> slow');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>alert(1)');
    expect(html).not.toContain('href="javascript:');
    expect(html).toContain('Health check &lt;b&gt;slow&lt;/b&gt;');
    expect(html).toContain(`<td>#${created}</td>`);
    expect(html).toContain('Takes 60s to start');
    expect(html).toContain('Backups run at 03:00');
    expect(html).toMatch(/reinforced <span class="muted">0\.6 → 0\.75<\/span>/);
    // The log, from the file.
    expect(html).toContain('session started · claude-haiku-4-5 · 24 tools');
    expect(html).toContain('<strong>Bash</strong> echo hello-from-tool');
    expect(html).toContain('<pre>hello-from-tool</pre>');
    expect(html).toContain('<span class="marker memory">[MEMORY:timing:jellyfin]</span>');
    expect(html).toContain('session complete (2 turns, $0.0002, 406 ms)');
    expect(html).not.toContain('live-log');
  });

  it('shows when each line of the activity log arrived, from the times kept beside the log', async () => {
    const id = session({ logPath: 'sessions/7.ndjson' });
    mkdirSync(join(h.dataDir, 'sessions'), { recursive: true });
    copyFileSync(REAL, join(h.dataDir, 'sessions/7.ndjson'));
    const at = Date.UTC(2026, 0, 1, 0, 0, 5);
    writeFileSync(join(h.dataDir, 'sessions/7.times'), `0 ${at}\n`);
    const html = await (await get(`/sessions/${id}`)).text();
    expect(html).toContain(
      '<time class="log-time" datetime="2026-01-01T00:00:05.000Z" title="2026-01-01\u00a000:00:05\u00a0UTC">00:00:05</time> <span class="kind">',
    );
  });

  it('says when the log file is missing, and reads a huge one a page at a time from its end', async () => {
    const missing = session({ logPath: 'sessions/missing.ndjson' });
    expect(await (await get(`/sessions/${missing}`)).text()).toContain(
      'No log file for this session (sessions/missing.ndjson is missing).',
    );
    const escaping = session({ logPath: '../../etc/passwd' });
    expect(await (await get(`/sessions/${escaping}`)).text()).toContain('No log file');

    const big = session({ logPath: 'sessions/big.ndjson' });
    mkdirSync(join(h.dataDir, 'sessions'), { recursive: true });
    const count = 12_000;
    const lines = Array.from({ length: count }, (_, i) => assistantText(`line ${i}`));
    const file = join(h.dataDir, 'sessions/big.ndjson');
    writeFileSync(file, lines.join('\n'));
    const size = statSync(file).size;
    const shown = (html: string) => [...html.matchAll(/>line (\d+)</g)].map((m) => Number(m[1]));
    const earlier = (html: string) => /hx-get="\/sessions\/\d+\/log\?before=(\d+)"/.exec(html)?.[1];

    const first = await (await get(`/sessions/${big}`)).text();
    const newest = shown(first);
    expect(newest.at(-1)).toBe(count - 1);
    expect(newest[0]).toBeGreaterThan(0);
    // A page is about 256 KiB of the log, whatever the file's size.
    const lineBytes = size / count;
    expect(newest.length).toBeLessThanOrEqual(Math.ceil((256 * 1024) / lineBytes) + 1);
    expect(first).toContain('Load earlier entries');

    // "Load earlier" walks back to the first line, each line on exactly one page.
    const seen = [...newest];
    let before = earlier(first);
    let pages = 1;
    while (before !== undefined && pages < 100) {
      const res = await get(`/sessions/${big}/log?before=${before}`);
      expect(res.status).toBe(200);
      const html = await res.text();
      seen.unshift(...shown(html));
      before = earlier(html);
      pages += 1;
    }
    expect(seen).toEqual(Array.from({ length: count }, (_, i) => i));
    expect(pages).toBe(Math.ceil(size / (256 * 1024)));

    expect((await get(`/sessions/${big}/log?before=abc`)).status).toBe(400);
    expect((await get(`/sessions/${missing}/log?before=10`)).status).toBe(404);
  });

  it('reads one line longer than a page whole, as its own page', async () => {
    const id = session({ logPath: 'sessions/long.ndjson' });
    mkdirSync(join(h.dataDir, 'sessions'), { recursive: true });
    const long = `long ${'z'.repeat(300 * 1024)}`;
    writeFileSync(
      join(h.dataDir, 'sessions/long.ndjson'),
      [assistantText('line 0'), assistantText(long), assistantText('line 2')].join('\n'),
    );
    const pages: string[] = [];
    let path: string | undefined = `/sessions/${id}`;
    while (path !== undefined && pages.length < 10) {
      const html: string = await (await get(path)).text();
      pages.push(html);
      const before: string | undefined = /log\?before=(\d+)"/.exec(html)?.[1];
      path = before === undefined ? undefined : `/sessions/${id}/log?before=${before}`;
    }
    expect(pages).toHaveLength(3);
    expect(pages[0]).toContain('>line 2<');
    expect(pages[1]).toContain('>long zzz');
    expect(pages[1]).not.toContain('>line');
    expect(pages[2]).toContain('>line 0<');
  });

  it('renders model-written text inert everywhere on the page and in the live log', async () => {
    const text = XSS_CORPUS.join('\n');
    const id = session(
      { prompt: text, logPath: 'sessions/x.ndjson' },
      { status: 'failed', response: text, error: text, model: XSS_CORPUS[0]!, cliSessionId: text },
    );
    h.stores.events.insert({
      sessionId: id,
      source: 'agent',
      level: 'critical',
      service: null,
      message: text,
      createdAt: h.clock.now(),
    });
    const lines = [
      init(XSS_CORPUS[1]!),
      assistantText(`${text}\n[EVENT:warning:db] ${XSS_CORPUS[1]!}`),
      toolUse(XSS_CORPUS[2]!),
      toolResult(text),
    ];
    mkdirSync(join(h.dataDir, 'sessions'), { recursive: true });
    writeFileSync(join(h.dataDir, 'sessions/x.ndjson'), lines.join('\n'));
    const html = await (await get(`/sessions/${id}`)).text();
    expect(unsafeMarkup(html)).toEqual([]);
    expect(html).toContain('&lt;script&gt;alert(&quot;xss-1&quot;)&lt;/script&gt;');

    const live = session({}, null);
    h.feed.open(live);
    for (const line of lines) publish(live, line);
    h.feed.publish(live, { kind: 'stderr', text });
    const res = await get(`/sessions/${live}/stream`);
    const reader = res.body!.getReader();
    const read = await readUntil(reader, (t) => t.includes('id: 5\n'));
    await reader.cancel();
    const data = sseEvents(read.text)
      .flatMap((e) => e.data)
      .join('\n');
    expect(data).toContain('xss-10');
    expect(unsafeMarkup(data)).toEqual([]);
  });

  it('answers 404 for an unknown session', async () => {
    expect((await get('/sessions/999')).status).toBe(404);
  });

  it('lists the memories the session was given, at start and after a tool call, with why', async () => {
    const pinned = await h.knowledge.memory.add({
      service: null,
      category: 'behavior',
      observation: 'Never restart the NAS during a backup',
      pinned: true,
    });
    const relevant = await h.knowledge.memory.add({
      service: 'jellyfin',
      category: 'timing',
      observation: 'Takes 60s to come back after a restart',
    });
    const id = session({ trigger: 'alert', prompt: 'ALERT: jellyfin down after restart' });
    const block = await h.knowledge.injection.build(
      { trigger: 'jellyfin down after restart' },
      400,
    );
    await h.knowledge.injection.record(id, block.injected);
    // Learned after the session started: only the hook can give it.
    const later = await h.knowledge.memory.add({
      service: 'postgres',
      category: 'maintenance',
      observation: 'VACUUM takes the database offline for a minute',
    });
    await h.knowledge.tools.surface(id, {
      toolName: 'Bash',
      toolInput: { command: 'psql -c "VACUUM FULL" postgres' },
      toolResponse: { stdout: 'VACUUM', stderr: '' },
    });

    const html = await (await get(`/sessions/${id}`)).text();
    const table = /<table id="memories-given">[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
    const rows = [
      ...table.matchAll(/<tr>\s*<td>(.*?)<\/td>\s*<td>#(\d+)<\/td>[\s\S]*?<\/tr>/g),
    ].map((r) => ({ via: r[1], id: Number(r[2]), text: r[0] }));
    expect(rows.map((r) => [r.via, r.id])).toEqual(
      expect.arrayContaining([
        ['at start', pinned.memory.id],
        ['at start', relevant.memory.id],
        ['after a tool call', later.memory.id],
      ]),
    );
    const row = (memoryId: number) => rows.find((r) => r.id === memoryId)!.text;
    expect(row(pinned.memory.id)).toContain('<td>pinned</td>');
    expect(row(relevant.memory.id)).toContain('Takes 60s to come back after a restart');
    expect(row(relevant.memory.id)).toMatch(/<td>relevant<div class="why"[^>]*>words rank 1 · /);
    expect(row(later.memory.id)).toMatch(/<td class="num">0\.\d\d<\/td>\s*<td>relevant<div/);

    const res = await api(`/sessions/${id}/memories`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      memories: {
        memory_id: number;
        via: string;
        score: number | null;
        detail: { reason?: string };
      }[];
    };
    expect(body.memories).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          memory_id: pinned.memory.id,
          via: 'context',
          detail: { reason: 'pinned' },
        }),
        expect.objectContaining({ memory_id: later.memory.id, via: 'hook' }),
      ]),
    );
    expect((await api('/sessions/999/memories')).status).toBe(404);

    const none = await (await get(`/sessions/${session()}`)).text();
    expect(none).toContain('This session was given no memories.');
  });

  it('shows a live session as an SSE log with follow, end and Stop', async () => {
    const id = session({}, null);
    h.feed.open(id);
    const html = await (await get(`/sessions/${id}`)).text();
    expect(html).toContain(
      `<div id="live-log" class="log" hx-ext="sse" sse-connect="/sessions/${id}/stream" sse-swap="entry" hx-swap="beforeend"`,
    );
    expect(html).toContain('id="follow"');
    expect(html).toContain('sse-swap="end"');
    expect(html).toContain(`hx-post="/sessions/${id}/stop"`);
    expect(html).toContain('hx-confirm=');
  });
});

describe('GET /sessions/:id/stream', () => {
  beforeEach(() => setup());

  it('streams log entries with ids, frames multi-line data, then ends', async () => {
    const id = session({}, null);
    h.feed.open(id);
    publish(id, init());
    publish(id, assistantText('Looking.\n[EVENT:critical:db] <down>'));
    publish(id, toolUse('docker ps'));

    const res = await get(`/sessions/${id}/stream`);
    expect(res.headers.get('Content-Type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    let read = await readUntil(reader, (t) => t.includes('id: 3\n'));
    expect(read.text.startsWith('retry: 3000\n\n')).toBe(true);

    // Published while the client is connected: a multi-line tool result and stderr.
    publish(id, toolResult('first line\nsecond <line>\nthird line'));
    h.feed.publish(id, { kind: 'stderr', text: 'npm warn x\n' });
    read = await readUntil(reader, (t) => t.includes('id: 5\n'), read.text);
    h.feed.close(id, 'completed');
    read = await readUntil(reader, () => false, read.text);
    expect(read.ended).toBe(true);

    const events = sseEvents(read.text).filter((e) => e.event);
    expect(events.map((e) => [e.event, e.id])).toEqual([
      ['entry', '1'],
      ['entry', '2'],
      ['entry', '3'],
      ['entry', '4'],
      ['entry', '5'],
      ['end', '6'],
    ]);
    // Every line of a block is a `data:` line of its own; nothing is left unframed.
    for (const e of events) expect(e.lines.every((l) => /^(event|id|data): /.test(l))).toBe(true);
    const result = events[3]!;
    expect(result.data).toContain('second &lt;line&gt;');
    expect(result.data.some((l) => l.startsWith('<div class="entry tool-result'))).toBe(true);
    expect(result.data.some((l) => l.endsWith('first line'))).toBe(true);
    expect(result.data.some((l) => l.startsWith('third line</pre>'))).toBe(true);
    expect(events[0]!.data.join('\n')).toContain('session started · claude-haiku-4-5 · 1 tool');
    expect(events[1]!.data.join('\n')).toContain(
      '<span class="marker critical">[EVENT:critical:db]</span> &lt;down&gt;',
    );
    expect(events[2]!.data.join('\n')).toContain('<strong>Bash</strong> docker ps');
    expect(events[4]!.data.join('\n')).toContain('npm warn x');
    expect(events[5]!.data.join('\n')).toContain('Session ended: <span class="badge completed">');
    // The status badge at the top follows; the page fetches its final view by itself.
    expect(events[5]!.data.join('\n')).toContain(
      '<span id="session-status" class="badge completed" hx-swap-oob="true">completed</span>',
    );
  });

  it('resumes after Last-Event-ID without repeating lines', async () => {
    const id = session({}, null);
    h.feed.open(id);
    for (const t of ['one', 'two', 'three', 'four']) publish(id, assistantText(t));
    const res = await get(`/sessions/${id}/stream`, { 'Last-Event-ID': '2' });
    const reader = res.body!.getReader();
    const read = await readUntil(reader, (t) => t.includes('id: 4\n'));
    await reader.cancel();
    const ids = sseEvents(read.text)
      .filter((e) => e.event === 'entry')
      .map((e) => [
        e.id,
        e.data
          .join('\n')
          .includes(`</span>${['', 'one', 'two', 'three', 'four'][Number(e.id)]}</div>`),
      ]);
    expect(ids).toEqual([
      ['3', true],
      ['4', true],
    ]);
  });

  it('sends end at once for a session that is not live', async () => {
    const id = session({}, { status: 'failed' });
    const text = await (await get(`/sessions/${id}/stream`)).text();
    const events = sseEvents(text).filter((e) => e.event);
    expect(events.map((e) => e.event)).toEqual(['end']);
    expect(events[0]!.data.join('\n')).toContain('<span class="badge failed">failed</span>');
  });

  it('unsubscribes when the client goes away', async () => {
    const id = session({}, null);
    h.feed.open(id);
    publish(id, assistantText('hello'));
    const res = await get(`/sessions/${id}/stream`);
    const reader = res.body!.getReader();
    await readUntil(reader, (t) => t.includes('id: 1\n'));
    const listeners = () =>
      (h.feed as unknown as { channels: Map<number, { listeners: Set<unknown> }> }).channels.get(
        id,
      )!.listeners.size;
    expect(listeners()).toBe(1);
    await reader.cancel();
    await new Promise((r) => setTimeout(r, 10));
    expect(listeners()).toBe(0);
  });
});

describe('POST /sessions/trigger (Run now)', () => {
  it('queues a manual run; a plain form is redirected', async () => {
    await setup();
    const res = await postForm('/sessions/trigger', { prompt: '  check the disks  ', tier: '2' });
    expect(res.status).toBe(303);
    expect(h.runner.requests).toEqual([
      { trigger: 'manual', startTier: 2, prompt: 'check the disks', alert: null },
    ]);
  });

  it('for htmx, redirects to the session once it has started', async () => {
    await setup();
    setTimeout(() => h.runner.ticket('ticket-1')!.sessionIds.push(42), 150);
    const res = await postForm('/sessions/trigger', { prompt: '', tier: '1' }, htmx);
    expect(res.status).toBe(200);
    expect(res.headers.get('HX-Redirect')).toBe('/sessions/42');
    expect(h.runner.requests[0]).toEqual({
      trigger: 'manual',
      startTier: 1,
      prompt: null,
      alert: null,
    });
  });

  it('for htmx, redirects to the session once the run has started it', async () => {
    await setup();
    const live = session({}, null);
    setTimeout(() => {
      const ticket = h.runner.ticket('ticket-1')!;
      ticket.state = 'running';
      ticket.sessionIds.push(live); // what the scheduler does when the session starts
    }, 150);
    const res = await postForm('/sessions/trigger', { tier: '1' }, htmx);
    expect(res.headers.get('HX-Redirect')).toBe(`/sessions/${live}`);
  });

  it('for htmx, says the run is queued when it has not started after a short wait', async () => {
    await setup();
    const res = await postForm('/sessions/trigger', { tier: '1' }, htmx);
    expect(res.status).toBe(200);
    expect(res.headers.get('HX-Redirect')).toBeNull();
    expect(await res.text()).toContain('Queued (request ticket-1)');
  });

  it('rejects a bad tier or prompt with the field named, and queues nothing', async () => {
    await setup({ env: { WATCHKEEPER_MAX_TIER: '2' } });
    const cases: [Record<string, string>, RegExp][] = [
      [{ tier: '4' }, /tier: must be 1, 2 or 3/],
      [{ tier: 'two' }, /tier: must be 1, 2 or 3/],
      [{ tier: '3' }, /tier: must be at most 2/],
      [
        { tier: '1', prompt: 'x'.repeat(20_001) },
        /prompt: is 20,001 characters; the limit is 20,000/,
      ],
    ];
    for (const [body, message] of cases) {
      const res = await postForm('/sessions/trigger', body, htmx);
      expect(res.status).toBe(422);
      const html = await res.text();
      expect(html).toMatch(message);
      expect(html).toContain('<form id="session-run"');
    }
    const plain = await postForm('/sessions/trigger', { tier: '9' });
    expect(plain.status).toBe(422);
    expect(h.runner.requests).toEqual([]);
  });

  it('shows a full queue inline', async () => {
    await setup();
    h.runner.queueLimit = 0;
    const res = await postForm('/sessions/trigger', { tier: '1', prompt: 'keep me' }, htmx);
    expect(res.status).toBe(409);
    const html = await res.text();
    expect(html).toContain('the run queue is full');
    expect(html).toContain('keep me</textarea>');
  });
});

describe('POST /sessions/:id/stop', () => {
  beforeEach(() => setup());

  it('refuses with 409 when the session is not running', async () => {
    const id = session();
    const res = await postForm(`/sessions/${id}/stop`, {}, htmx);
    expect(res.status).toBe(409);
    expect(await res.text()).toContain(`session ${id} is not running`);
    expect(h.runner.stops).toBe(0);
  });

  it('stops the live session', async () => {
    const id = session({}, null);
    h.feed.open(id);
    (h.runner as unknown as { running: boolean }).running = true;
    const res = await postForm(`/sessions/${id}/stop`, {}, htmx);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Stopping');
    expect(h.runner.stops).toBe(1);
  });
});

describe('/api/v1/sessions', () => {
  beforeEach(() => setup());

  it('needs a token, and a CSRF header with a cookie', async () => {
    const anonymous = await h.request('/api/v1/sessions');
    expect(anonymous.status).toBe(401);
    expect((await errorOf(anonymous)).code).toBe('unauthorized');
    const noCsrf = await h.request('/api/v1/sessions', {
      method: 'POST',
      body: '{}',
      headers: { Cookie: auth.cookie, 'Content-Type': 'application/json' },
    });
    expect(noCsrf.status).toBe(403);
    expect((await errorOf(noCsrf)).code).toBe('csrf');
    expect(h.runner.requests).toEqual([]);
  });

  it('lists sessions and shows one with children, events and the chain cost', async () => {
    const root = session({}, { status: 'escalated', costUsd: 0.5 });
    const child = session({ tier: 2, parentSessionId: root }, { costUsd: 0.25 });
    h.stores.events.insert({
      sessionId: root,
      source: 'system',
      level: 'info',
      service: null,
      message: 'escalating',
      createdAt: h.clock.now(),
    });
    const list = (await (await api('/sessions?limit=1')).json()) as {
      sessions: { id: number }[];
      total: number;
    };
    expect(list.sessions.map((s) => s.id)).toEqual([child]);
    expect(list.total).toBe(2);
    expect((await api('/sessions?limit=x')).status).toBe(400);

    const one = await (await api(`/sessions/${root}`)).json();
    expect(one).toMatchObject({
      id: root,
      status: 'escalated',
      children: [child],
      chain_cost_usd: 0.75,
      events: [{ message: 'escalating', level: 'info', session_id: root }],
    });
    expect((await api('/sessions/999')).status).toBe(404);
  });

  it('triggers a run and reports its request', async () => {
    const res = await postJson('/sessions', { prompt: 'look at nginx', tier: 2 });
    expect(res.status).toBe(202);
    const body = await res.json();
    expect(body).toEqual({ request_id: 'ticket-1', state: 'queued', session_ids: [] });
    expect(h.runner.requests).toEqual([
      { trigger: 'api', startTier: 2, prompt: 'look at nginx', alert: null },
    ]);
    const ticket = await (await api('/sessions/requests/ticket-1')).json();
    expect(ticket).toEqual({
      request_id: 'ticket-1',
      state: 'queued',
      session_ids: [],
      error: null,
    });
    expect((await api('/sessions/requests/nope')).status).toBe(404);
  });

  it('rejects a bad tier with 422 naming the field, and a full queue with 409', async () => {
    const bad = await postJson('/sessions', { tier: 5 });
    expect(bad.status).toBe(422);
    expect(await errorOf(bad)).toMatchObject({ code: 'invalid_input', field: 'tier' });
    const notText = await postJson('/sessions', { prompt: 42 });
    expect(await errorOf(notText)).toMatchObject({ field: 'prompt' });
    h.runner.queueLimit = 0;
    const busy = await postJson('/sessions', {});
    expect(busy.status).toBe(409);
    expect((await errorOf(busy)).code).toBe('busy');
    expect(h.runner.requests).toEqual([]);
  });

  it('stops only a running session', async () => {
    const id = session({}, null);
    const notLive = await api(`/sessions/${id}/stop`, { method: 'POST' });
    expect(notLive.status).toBe(409);
    expect((await errorOf(notLive)).code).toBe('not_running');
    h.feed.open(id);
    (h.runner as unknown as { running: boolean }).running = true;
    const res = await api(`/sessions/${id}/stop`, { method: 'POST' });
    expect(await res.json()).toEqual({ stopped: true });
    expect(h.runner.stops).toBe(1);
  });
});

describe('/api/v1/webhook', () => {
  beforeEach(() => setup({ env: { WATCHKEEPER_WEBHOOK_MAX_BYTES: '256' } }));

  it('queues an alert run from JSON or plain text', async () => {
    const res = await postJson('/webhook', { message: 'disk /var is 97% full', tier: 2, extra: 1 });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ request_id: 'ticket-1', repeats: 0 });
    const text = await api('/webhook?tier=3', {
      method: 'POST',
      body: 'nginx down\nsince 10:02',
      headers: { 'Content-Type': 'text/plain; charset=utf-8' },
    });
    expect(text.status).toBe(202);
    await postJson('/webhook', { status: 'firing', labels: { alertname: 'Down' } });
    expect(h.runner.requests).toEqual([
      { trigger: 'alert', startTier: 2, prompt: null, alert: 'disk /var is 97% full' },
      { trigger: 'alert', startTier: 3, prompt: null, alert: 'nginx down\nsince 10:02' },
      {
        trigger: 'alert',
        startTier: 1,
        prompt: null,
        alert: JSON.stringify({ status: 'firing', labels: { alertname: 'Down' } }, null, 2),
      },
    ]);
  });

  it('refuses a body over the limit, by header or by the bytes sent', async () => {
    const big = JSON.stringify({ text: 'x'.repeat(300) });
    const res = await postJson('/webhook', { text: 'x'.repeat(300) });
    expect(res.status).toBe(413);
    expect((await errorOf(res)).message).toMatch(/over the limit of 256 bytes/);
    const declared = await api('/webhook', {
      method: 'POST',
      body: '{"text":"small"}',
      headers: { 'Content-Type': 'application/json', 'Content-Length': '100000' },
    });
    expect(declared.status).toBe(413);
    // A body larger than its Content-Length claims is counted as it is read.
    const lying = await api('/webhook', {
      method: 'POST',
      body: big,
      headers: { 'Content-Type': 'application/json', 'Content-Length': '10' },
    });
    expect(lying.status).toBe(413);
    expect(h.runner.requests).toEqual([]);
  });

  it('answers 409 when the queue is full, and 422 for a bad tier or an empty alert', async () => {
    expect((await postJson('/webhook', { text: 'x', tier: 7 })).status).toBe(422);
    const blank = await api('/webhook', {
      method: 'POST',
      body: ' \n ',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(blank.status).toBe(422);
    expect(await errorOf(blank)).toMatchObject({ field: 'text' });
    h.runner.queueLimit = 0;
    const busy = await postJson('/webhook', { text: 'db down' });
    expect(busy.status).toBe(409);
    expect((await errorOf(busy)).code).toBe('busy');
    const form = await api('/webhook', {
      method: 'POST',
      body: 'a=b',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
  });
});
