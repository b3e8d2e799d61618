/**
 * The OpenAI-compatible routes in-process: the models list, the Bearer-only rule, the request's
 * checks in OpenAI's error shape, the run queue's limit as a 429, and the answer whole and
 * streamed from a session's live feed (the run queue is the test's fake; the feed is real).
 */
import { afterEach, describe, expect, it } from 'vitest';

import type { StreamMessage } from '../../src/stream/index.js';
import { TOKEN, type WebHarness, webHarness } from '../helpers/web.js';

let h: WebHarness;
afterEach(() => h?.close());

const bearer = { Authorization: `Bearer ${TOKEN}` };
const chat = (body: unknown, headers: Record<string, string> = bearer) =>
  h.request('/v1/chat/completions', {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', ...headers },
  });
const ask = (content: string, extra: Record<string, unknown> = {}) => ({
  model: 'watchkeeper',
  messages: [{ role: 'user', content }],
  ...extra,
});

const said = (text: string, parentToolUseId: string | null = null): StreamMessage => ({
  type: 'assistant',
  messageId: `msg-${text.length}`,
  model: 'claude',
  parentToolUseId,
  content: [{ type: 'text', text }],
  raw: {},
});
const result: StreamMessage = {
  type: 'result',
  subtype: 'success',
  isError: false,
  result: 'done',
  errors: [],
  sessionId: 'cli-1',
  numTurns: 1,
  durationMs: 5,
  durationApiMs: 4,
  totalCostUsd: 0.01,
  usage: { input_tokens: 10, cache_read_input_tokens: 5, output_tokens: 7 },
  raw: {},
};

/** Runs the queued chat as the runner would: one session saying `texts`, then the run ends. */
async function runSession(texts: string[], status: 'completed' | 'failed' = 'completed') {
  await expect.poll(() => h.runner.requests.length).toBe(1);
  const ticket = h.runner.ticket('ticket-1')!;
  ticket.state = 'running';
  h.feed.open(41);
  ticket.sessionIds.push(41);
  // The CLI starts a while later: whoever follows the run has heard of the session by then.
  await new Promise((resolve) => setImmediate(resolve));
  h.feed.publish(41, { kind: 'message', message: said('a subagent aside', 'toolu_1') });
  for (const text of texts) h.feed.publish(41, { kind: 'message', message: said(text) });
  h.feed.publish(41, { kind: 'message', message: result });
  h.feed.close(41, status);
  h.runner.end('ticket-1');
}

interface Chunk {
  object: string;
  choices: { delta: { content?: string }; message: { content: string } }[];
  usage: unknown;
}

/** The `data:` payloads of an SSE body. */
const events = (body: string) =>
  body
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => l.slice('data: '.length));

describe('GET /v1/models', () => {
  it('lists watchkeeper and each tier up to MAX_TIER, in OpenAI list shape', async () => {
    h = webHarness({ env: { WATCHKEEPER_MAX_TIER: '2' } });
    const res = await h.request('/v1/models', { headers: bearer });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { object: string; data: Record<string, unknown>[] };
    expect(body.object).toBe('list');
    expect(body.data.map((m) => m.id)).toEqual([
      'watchkeeper',
      'watchkeeper-tier1',
      'watchkeeper-tier2',
    ]);
    expect(body.data[0]).toEqual({
      id: 'watchkeeper',
      object: 'model',
      created: expect.any(Number),
      owned_by: 'watchkeeper',
    });
    const one = await h.request('/v1/models/watchkeeper-tier2', { headers: bearer });
    expect(await one.json()).toMatchObject({ id: 'watchkeeper-tier2', object: 'model' });
    const none = await h.request('/v1/models/watchkeeper-tier3', { headers: bearer });
    expect(none.status).toBe(404);
    expect(await none.json()).toMatchObject({ error: { code: 'model_not_found' } });
  });
});

describe('who may chat', () => {
  it('takes the Bearer token only: none, a wrong one or a signed-in cookie is a 401', async () => {
    h = webHarness();
    const auth = await h.login();
    const cookie = { Cookie: auth.cookie, 'X-CSRF-Token': auth.csrf };
    for (const headers of [
      {} as Record<string, string>,
      { Authorization: 'Bearer wrong-token-0123456789' },
      cookie,
    ]) {
      const res = await chat(ask('hello'), headers);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({
        error: {
          message: expect.stringContaining('Authorization: Bearer TOKEN'),
          type: 'authentication_error',
          code: 'invalid_api_key',
          param: null,
        },
      });
    }
    expect((await h.request('/v1/models')).status).toBe(401);
    expect(h.runner.requests).toEqual([]);
  });
});

describe('POST /v1/chat/completions refuses', () => {
  it('an unknown model with 404 model_not_found, naming the models there are', async () => {
    h = webHarness({ env: { WATCHKEEPER_MAX_TIER: '1' } });
    for (const model of ['gpt-4o', 'watchkeeper-tier2']) {
      const res = await chat({ ...ask('hello'), model });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({
        error: {
          message: `the model \`${model}\` does not exist: use one of watchkeeper, watchkeeper-tier1`,
          type: 'invalid_request_error',
          code: 'model_not_found',
          param: 'model',
        },
      });
    }
    expect(h.runner.requests).toEqual([]);
  });

  it('a chat without a user message, or without messages, with 400 naming the field', async () => {
    h = webHarness();
    const none = await chat({
      model: 'watchkeeper',
      messages: [{ role: 'system', content: 'be brief' }],
    });
    expect(none.status).toBe(400);
    expect(await none.json()).toMatchObject({
      error: {
        message: expect.stringContaining('messages: holds no user message'),
        type: 'invalid_request_error',
        param: 'messages',
      },
    });
    const empty = await chat({ model: 'watchkeeper', messages: [] });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({
      error: { message: 'messages: must hold at least one message', param: 'messages' },
    });
    const blank = await chat(ask('   '));
    expect(((await blank.json()) as { error: { message: string } }).error.message).toBe(
      'messages.0.content: the last user message is empty',
    );
    const notJson = await h.request('/v1/chat/completions', {
      method: 'POST',
      body: 'hello',
      headers: { 'Content-Type': 'application/json', ...bearer },
    });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ error: { message: 'body is not valid JSON' } });
    expect(h.runner.requests).toEqual([]);
  });

  it('with 429 when the run queue is full, saying so', async () => {
    h = webHarness();
    h.runner.queueLimit = 0;
    const res = await chat(ask('hello'));
    expect(res.status).toBe(429);
    expect(await res.json()).toEqual({
      error: {
        message: expect.stringContaining('the run queue is full'),
        type: 'rate_limit_error',
        code: 'queue_full',
        param: null,
      },
    });
  });
});

describe('the answer', () => {
  it('queues a chat run at the tier its model names, the conversation as its prompt', async () => {
    h = webHarness();
    const res = chat({
      model: 'watchkeeper-tier2',
      messages: [
        { role: 'system', content: 'You answer operators.' },
        { role: 'user', content: 'Is nginx up?' },
        { role: 'assistant', content: [{ type: 'text', text: 'Yes, since 09:00.' }] },
        { role: 'user', content: 'And its certificate?' },
      ],
    });
    await runSession(['It expires in 40 days.']);
    expect((await res).status).toBe(200);
    expect(h.runner.requests).toEqual([
      {
        trigger: 'chat',
        startTier: 2,
        alert: null,
        prompt: [
          'The conversation so far (oldest first):',
          '',
          'system: You answer operators.',
          '',
          'user: Is nginx up?',
          '',
          'assistant: Yes, since 09:00.',
          '',
          '---',
          '',
          "The operator's new message:",
          '',
          'And its certificate?',
        ].join('\n'),
      },
    ]);
  });

  it("is the main agent's text as a chat.completion, with the usage the session reported", async () => {
    h = webHarness();
    const res = chat(ask('Is nginx up?'));
    await runSession(['Checking nginx.', 'nginx is up.']);
    const r = await res;
    expect(r.status).toBe(200);
    expect(h.runner.requests[0]).toMatchObject({ trigger: 'chat', prompt: 'Is nginx up?' });
    expect(await r.json()).toEqual({
      id: 'chatcmpl-ticket-1',
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'watchkeeper',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Checking nginx.\n\nnginx is up.', refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 15, completion_tokens: 7, total_tokens: 22 },
      watchkeeper: { request_id: 'ticket-1', session_ids: [41] },
    });
  });

  it('streams as chat.completion.chunk events ending with [DONE]', async () => {
    h = webHarness();
    const res = chat(
      ask('Is nginx up?', { stream: true, stream_options: { include_usage: true } }),
    );
    await runSession(['Checking nginx.', 'nginx is up.']);
    const r = await res;
    expect(r.headers.get('Content-Type')).toContain('text/event-stream');
    const data = events(await r.text());
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d) as Chunk);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '' });
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('Checking nginx.\n\nnginx is up.');
    expect(chunks.at(-2)!.choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 15, completion_tokens: 7, total_tokens: 22 },
    });
  });

  it('leaves the run alone when the client goes away', async () => {
    h = webHarness();
    const res = await chat(ask('Is nginx up?', { stream: true }));
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('chat.completion.chunk');
    await reader.cancel();
    await runSession(['nginx is up.']);
    expect(h.runner.stops).toBe(0);
    expect(h.runner.ticket('ticket-1')).toMatchObject({ state: 'done', cancelledBy: null });
  });

  it('is an error naming the session when the session did not complete', async () => {
    h = webHarness();
    const res = chat(ask('Is nginx up?'));
    await runSession(['Checking nginx.'], 'failed');
    const r = await res;
    expect(r.status).toBe(502);
    expect(await r.json()).toEqual({
      error: {
        message: 'session 41 ended failed (see /sessions/41)',
        type: 'server_error',
        code: 'session_failed',
        param: null,
      },
    });
  });

  it('is the stored final text of a session that ended before it could be followed', async () => {
    h = webHarness();
    const res = chat(ask('Is nginx up?'));
    await expect.poll(() => h.runner.requests.length).toBe(1);
    const id = h.stores.sessions.start({ trigger: 'chat', tier: 1, startedAt: 1 });
    h.stores.sessions.finish(id, {
      status: 'completed',
      endedAt: 2,
      response: 'nginx is up.',
      usage: { input_tokens: 3, output_tokens: 2 },
    });
    h.runner.ticket('ticket-1')!.sessionIds.push(id);
    h.runner.end('ticket-1');
    const body = (await (await res).json()) as Chunk;
    expect(body.choices[0]!.message.content).toBe('nginx is up.');
    expect(body.usage).toEqual({ prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 });
  });

  it('is an error when the queued run is cancelled before it starts', async () => {
    h = webHarness();
    const res = chat(ask('Is nginx up?', { stream: true }));
    await expect.poll(() => h.runner.requests.length).toBe(1);
    h.runner.cancel('ticket-1', 'the operator');
    const data = events(await (await res).text());
    expect(JSON.parse(data.at(-1)!)).toEqual({
      error: {
        message: 'the run ended (cancelled) before any session started',
        type: 'server_error',
        code: 'run_cancelled',
        param: null,
      },
    });
  });
});
