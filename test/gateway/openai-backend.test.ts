/**
 * The gateway's OpenAI-compatible backend against a small fake chat-completions server on
 * loopback. The fake speaks the real shapes of OpenAI's API (the request's `messages` and
 * `response_format: {type: "json_schema", json_schema: {name, schema, strict}}`, the answer's
 * `choices[0].message.content` and `usage.prompt_tokens/completion_tokens`, a 429 with
 * `Retry-After` and `{"error": {...}}`), which Ollama, vLLM and LiteLLM copy; it is not OpenAI.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';

import { createGateway } from '../../src/gateway/index.js';
import { chatEndpoint, createOpenAiBackend } from '../../src/gateway/openai-backend.js';
import { testApp, type TestApp } from '../helpers/db.js';
import { gatewayConfig } from '../helpers/gateway.js';

interface Seen {
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

let server: Server | null = null;
let app: TestApp | null = null;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
  app?.close();
  app = null;
});

async function fakeOpenAi(answers: ((seen: Seen) => [number, unknown, Record<string, string>?])[]) {
  const seen: Seen[] = [];
  server = createServer((req: IncomingMessage, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const s = {
        path: req.url ?? '',
        authorization: req.headers.authorization,
        body: JSON.parse(raw) as Record<string, unknown>,
      };
      seen.push(s);
      const [status, body, headers] = answers[Math.min(seen.length, answers.length) - 1]!(s);
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, seen };
}

const completion = (content: string) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1_767_225_600,
  model: 'gpt-4.1-mini-2025-04-14',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content, refusal: null },
      finish_reason: 'stop',
    },
  ],
  usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 },
});

describe('OpenAI-compatible backend', () => {
  it('accepts a base URL with or without /v1', () => {
    expect(chatEndpoint('http://127.0.0.1:11434').pathname).toBe('/v1/chat/completions');
    expect(chatEndpoint('http://127.0.0.1:11434/v1').pathname).toBe('/v1/chat/completions');
  });

  it('asks for JSON with response_format, retries a 429, and records tokens and cost', async () => {
    const fake = await fakeOpenAi([
      () => [
        429,
        { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } },
        { 'retry-after': '0' },
      ],
      () => [200, completion('{"worth_remembering": false, "reason": "small talk"}')],
    ]);
    app = testApp();
    const config = gatewayConfig({
      backend: 'openai',
      url: fake.url,
      key: 'sk-test',
      retries: 2,
      models: { gate: 'gpt-4.1-mini', extract: 'gpt-4.1-mini', summary: 'gpt-4.1-mini' },
    });
    const gateway = createGateway({
      config,
      backend: createOpenAiBackend({ url: fake.url, key: 'sk-test' }),
      jobs: app.stores.gatewayJobs,
      events: app.stores.events,
      clock: app.clock,
      retryBaseMs: 1,
    });
    const r = await gateway.run({
      kind: 'gate',
      system: 'Decide.',
      prompt: 'hello',
      schema: z.strictObject({ worth_remembering: z.boolean(), reason: z.string() }),
    });
    expect(r).toMatchObject({
      ok: true,
      json: { worth_remembering: false, reason: 'small talk' },
      attempts: 2,
      model: 'gpt-4.1-mini-2025-04-14',
      inputTokens: 1000,
      outputTokens: 100,
    });
    // gpt-4.1-mini: $0.40 per million in, $1.60 out.
    if (r.ok) expect(r.costUsd).toBeCloseTo(0.00056, 10);
    expect(fake.seen).toHaveLength(2);
    const request = fake.seen[1]!;
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.authorization).toBe('Bearer sk-test');
    expect(request.body.messages).toEqual([
      { role: 'system', content: 'Decide.' },
      { role: 'user', content: 'hello' },
    ]);
    expect(request.body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'result', strict: true, schema: { type: 'object' } },
    });
  });

  it('reports a 401 without retrying and without showing the key', async () => {
    const fake = await fakeOpenAi([
      () => [
        401,
        {
          error: {
            message: 'Incorrect API key provided: sk-secret-key',
            type: 'invalid_request_error',
          },
        },
      ],
    ]);
    app = testApp();
    const gateway = createGateway({
      config: gatewayConfig({ backend: 'openai', url: fake.url, key: 'sk-secret-key', retries: 3 }),
      backend: createOpenAiBackend({ url: fake.url, key: 'sk-secret-key' }),
      jobs: app.stores.gatewayJobs,
      events: app.stores.events,
      clock: app.clock,
      retryBaseMs: 1,
    });
    const r = await gateway.run({ kind: 'summary', prompt: 'x' });
    expect(r).toMatchObject({ ok: false, outcome: 'failed', attempts: 1 });
    if (!r.ok) {
      expect(r.error).toMatch(/HTTP 401 \(check WATCHKEEPER_GATEWAY_KEY\)/);
      expect(r.error).not.toContain('sk-secret-key');
    }
  });
});
