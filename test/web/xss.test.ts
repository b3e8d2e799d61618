/** The XSS corpus stored as memories, events, session output and blocked commands renders inert on every page. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import { webHarness, type WebHarness } from '../helpers/web.js';
import { unsafeMarkup, XSS_CORPUS } from '../helpers/xss.js';

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
    memoryId = h.keeper.add({ service: null, category: 'behavior', observation: payload }).id;
  }
  h.keeper.edit(memoryId, { observation: `${XSS_CORPUS[6]!} edited` });
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

  it('the JSON API returns the text as data', async () => {
    const res = await h.request('/api/v1/memories?status=all', {
      headers: { Authorization: 'Bearer test-token-0123456789abcdef' },
    });
    expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
    const body = (await res.json()) as { memories: { observation: string }[] };
    expect(body.memories.map((m) => m.observation)).toContain(XSS_CORPUS[0]);
  });
});
