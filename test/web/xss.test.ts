/** The XSS corpus stored as memories, events, session output and blocked commands renders inert on every page. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import { webHarness, type WebHarness } from '../helpers/web.js';
import { unsafeMarkup, XSS_CORPUS } from '../helpers/xss.js';
import { seedMemory } from '../helpers/db.js';

let h: WebHarness;
let cookie: string;
let sessionId: number;
let memoryId: number;

beforeAll(async () => {
  h = webHarness();
  cookie = (await h.login()).cookie;
  const text = XSS_CORPUS.join('\n');
  sessionId = h.stores.sessions.start({
    trigger: 'manual',
    tier: 1,
    prompt: text,
    startedAt: h.clock.now(),
    logPath: 'sessions/1.ndjson',
  });
  const lines = [
    { type: 'system', subtype: 'init', session_id: 's', model: XSS_CORPUS[0]!, tools: ['Bash'] },
    {
      type: 'assistant',
      message: {
        id: 'm1',
        content: [
          { type: 'text', text: `${text}\n[EVENT:warning:db] ${XSS_CORPUS[1]!}` },
          { type: 'tool_use', id: 't', name: 'Bash', input: { command: XSS_CORPUS[2]! } },
        ],
      },
      parent_tool_use_id: null,
    },
    {
      type: 'user',
      message: {
        content: [{ type: 'tool_result', tool_use_id: 't', content: text, is_error: true }],
      },
      parent_tool_use_id: null,
    },
    { type: 'result', subtype: 'success', is_error: false, result: text, num_turns: 1 },
  ];
  mkdirSync(join(h.dataDir, 'sessions'), { recursive: true });
  writeFileSync(
    join(h.dataDir, 'sessions', '1.ndjson'),
    lines.map((l) => JSON.stringify(l)).join('\n'),
  );
  h.stores.sessions.finish(sessionId, {
    status: 'failed',
    endedAt: h.clock.now(),
    response: text,
    error: XSS_CORPUS[3]!,
    model: XSS_CORPUS[0]!,
  });
  for (const payload of XSS_CORPUS) {
    h.stores.events.insert({
      sessionId,
      source: 'agent',
      level: 'critical',
      service: null,
      message: payload,
      createdAt: h.clock.now(),
    });
    memoryId = seedMemory(h, { service: null, category: 'behavior', observation: payload }).id;
  }
  await h.keeper.edit(memoryId, { observation: `${XSS_CORPUS[6]!} edited` });
  // A service the agent described with a payload, and memories the session was given.
  h.stores.events.insert({
    sessionId,
    source: 'agent',
    level: 'warning',
    service: 'jellyfin',
    message: 'slow',
    createdAt: h.clock.now(),
  });
  h.knowledge.services.describe('jellyfin', XSS_CORPUS.slice(0, 4).join(' '), 'agent');
  seedMemory(h, { service: 'jellyfin', category: 'timing', observation: XSS_CORPUS[4]! });
  const given = await h.knowledge.search.search('xss alert script', { status: 'all', limit: 20 });
  await h.stores.surfacing.record(
    sessionId,
    given.results.map((r) => ({
      memoryId: r.memory.id,
      score: r.why.score,
      detail: { why: r.why },
    })),
    'hook',
    h.clock.now(),
  );
  h.stores.cooldowns.recordBlock({
    service: 'jellyfin',
    actionType: 'restart',
    command: text,
    reason: XSS_CORPUS[1]!,
    sessionId,
    createdAt: h.clock.now(),
  });
});
afterEach(() => undefined);

describe('XSS corpus renders inert', () => {
  it.each([
    '/',
    '/memories',
    '/memories?status=all',
    `/memories/${'ID'}/history`,
    '/events',
    '/sessions',
    `/sessions/${'SID'}`,
    '/cooldowns',
    '/services',
    '/services/jellyfin',
    '/memories?status=all&q=alert+xss+script',
  ])('%s', async (pathTemplate) => {
    const path = pathTemplate.replace('SID', String(sessionId)).replace('ID', String(memoryId));
    const res = await h.request(path, {
      headers: { Cookie: cookie, ...(path.includes('history') ? { 'HX-Request': 'true' } : {}) },
    });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(unsafeMarkup(html)).toEqual([]);
    // The text is still shown to the operator, escaped.
    if (!path.startsWith('/cooldowns') && path !== '/')
      expect(html).toMatch(/&lt;script&gt;alert|&lt;svg onload/);
  });

  it('a search query that tries to break out of the search box stays inside its value', async () => {
    const res = await h.request(`/memories?q=${encodeURIComponent(XSS_CORPUS[1]!)}`, {
      headers: { Cookie: cookie },
    });
    const html = await res.text();
    expect(html).toContain(
      'name="q" id="memory-search" value="&quot;&gt;&lt;img src=x onerror=alert(&quot;xss-2&quot;)&gt;"',
    );
    // A quoted value holds no raw quote, so it cannot hide a tag: without the values, what is
    // left is the page's own markup, and no payload may be in it.
    expect(html).toContain('data-q="&quot;&gt;&lt;img src=x onerror=alert(&quot;xss-2&quot;)&gt;"');
    expect(unsafeMarkup(html.replace(/ (value|data-q)="[^"]*"/g, ' $1=""'))).toEqual([]);
  });

  it('the JSON API returns the text as data', async () => {
    const res = await h.request('/api/v1/memories?status=all', {
      headers: { Authorization: 'Bearer test-token-0123456789abcdef' },
    });
    expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
    const body = (await res.json()) as { memories: { observation: string }[] };
    expect(body.memories.map((m) => m.observation)).toContain(XSS_CORPUS[0]);
  });
});
