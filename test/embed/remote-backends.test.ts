/**
 * The Ollama and OpenAI-compatible backends against loopback servers that speak the real
 * request/response shapes (fake-backend.ts: a seam that cannot be real here).
 */
import { afterEach, describe, expect, it } from 'vitest';

import type { AppError } from '../../src/errors.js';
import { createEmbedder } from '../../src/embed/create.js';
import type { Embedder, EmbeddingsOptions } from '../../src/embed/embedder.js';
import {
  deadAddress,
  type FakeBackend,
  fakeVector,
  ollamaHandler,
  openAiHandler,
  sendJson,
  startFakeBackend,
  unitFakeVector,
} from './fake-backend.js';

const KEY = 'sk-test-0123456789abcdef';
const servers: FakeBackend[] = [];

async function serve(handler: Parameters<typeof startFakeBackend>[0]) {
  const s = await startFakeBackend(handler);
  servers.push(s);
  return s;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function make(options: Partial<EmbeddingsOptions> & Pick<EmbeddingsOptions, 'backend'>): Embedder {
  return createEmbedder({ url: null, model: null, key: null, timeoutMs: 5000, ...options })!;
}

function plain(vectors: Float32Array[]): number[][] {
  return vectors.map((v) => Array.from(v));
}

function expectClose(actual: number[][], expected: number[][]) {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((row, i) => row.forEach((x, j) => expect(x).toBeCloseTo(expected[i]![j]!, 6)));
}

describe('ollama backend', () => {
  it('posts model and input to /api/embed, with nomic task prefixes, and returns unit vectors', async () => {
    const server = await serve(ollamaHandler);
    const e = make({ backend: 'ollama', url: server.url });
    expect(e.model).toBe('nomic-embed-text');
    expect(e.dimension).toBeNull();

    const queries = await e.embedQueries(['WiFi keeps dropping']);
    const docs = await e.embedDocuments(['router firmware resets the network', 'disk full']);

    expect(server.requests.map((r) => [r.method, r.path, r.body])).toEqual([
      [
        'POST',
        '/api/embed',
        { model: 'nomic-embed-text', input: ['search_query: WiFi keeps dropping'] },
      ],
      [
        'POST',
        '/api/embed',
        {
          model: 'nomic-embed-text',
          input: [
            'search_document: router firmware resets the network',
            'search_document: disk full',
          ],
        },
      ],
    ]);
    expectClose(plain(queries), [unitFakeVector('search_query: WiFi keeps dropping')]);
    expectClose(plain(docs), [
      unitFakeVector('search_document: router firmware resets the network'),
      unitFakeVector('search_document: disk full'),
    ]);
    expect(e.dimension).toBe(8);
  });

  it('sends other models the text as it is, and honours a path prefix in the URL', async () => {
    const server = await serve((req, res) =>
      ollamaHandler({ ...req, path: req.path.replace(/^\/ollama/, '') }, res),
    );
    const e = make({ backend: 'ollama', url: `${server.url}/ollama/`, model: 'all-minilm' });
    await e.embedQueries(['disk full']);
    expect(server.requests[0]).toMatchObject({
      path: '/ollama/api/embed',
      body: { model: 'all-minilm', input: ['disk full'] },
    });
  });

  it('splits a long list into requests of 32 texts and keeps the order', async () => {
    const server = await serve(ollamaHandler);
    const e = make({ backend: 'ollama', url: server.url, model: 'all-minilm' });
    const texts = Array.from({ length: 70 }, (_, i) => `memory number ${i}`);
    const vectors = await e.embedDocuments(texts);
    expect(server.requests.map((r) => (r.body as { input: string[] }).input.length)).toEqual([
      32, 32, 6,
    ]);
    expectClose(plain(vectors), texts.map(unitFakeVector));
  });

  it('names the model a server does not have', async () => {
    const server = await serve((_req, res) =>
      sendJson(res, 404, { error: 'model "nomic-embed-text" not found, try pulling it first' }),
    );
    const e = make({ backend: 'ollama', url: server.url });
    await expect(e.embedQueries(['x'])).rejects.toMatchObject({
      code: 'embedding_failed',
      message:
        `ollama embeddings: HTTP 404 (check WATCHKEEPER_EMBEDDINGS_URL and WATCHKEEPER_EMBEDDINGS_MODEL) ` +
        `from ${server.url}/api/embed: {"error":"model \\"nomic-embed-text\\" not found, try pulling it first"}`,
    });
  });

  it('refuses an answer with the wrong number of vectors', async () => {
    const server = await serve((_req, res) => sendJson(res, 200, { embeddings: [[1, 2]] }));
    const e = make({ backend: 'ollama', url: server.url });
    await expect(e.embedDocuments(['a', 'b'])).rejects.toMatchObject({
      code: 'embedding_failed',
      message: `ollama embeddings: unexpected answer from ${server.url}/api/embed: expected {"embeddings": [...]} with 2 vectors, got {"embeddings":[[1,2]]}`,
    });
  });

  it('refuses a vector of another length than the first answers had', async () => {
    let dims = 8;
    const server = await serve((req, res) => {
      const { input } = req.body as { input: string[] };
      sendJson(res, 200, { embeddings: input.map((t) => fakeVector(t).slice(0, dims)) });
    });
    const e = make({ backend: 'ollama', url: server.url });
    await e.embedQueries(['a']);
    dims = 6;
    await expect(e.embedQueries(['b'])).rejects.toMatchObject({
      code: 'embedding_failed',
      message: expect.stringContaining('vector 0 has 6 dimensions, expected 8 (the model behind'),
    });
  });

  it('refuses non-numbers and all-zero vectors', async () => {
    let answer: unknown = { embeddings: [[1, 'x', 3]] };
    const server = await serve((_req, res) => sendJson(res, 200, answer));
    const e = make({ backend: 'ollama', url: server.url });
    await expect(e.embedQueries(['a'])).rejects.toMatchObject({
      message: 'ollama embeddings: vector 0 holds "x" at 1, not a finite number',
    });
    answer = { embeddings: [[0, 0, 0]] };
    await expect(e.embedQueries(['a'])).rejects.toMatchObject({
      message: 'ollama embeddings: vector 0 is all zeros',
    });
  });
});

describe('openai backend', () => {
  it('posts to /v1/embeddings with the key as a Bearer token and orders the answer by index', async () => {
    const server = await serve(openAiHandler({ key: KEY, reverse: true }));
    const e = make({ backend: 'openai', url: server.url, key: KEY });
    expect(e.model).toBe('text-embedding-3-small');
    const texts = ['WiFi keeps dropping', 'network configuration resets', 'banana bread'];
    const vectors = await e.embedDocuments(texts);
    expect(server.requests).toEqual([
      {
        method: 'POST',
        path: '/v1/embeddings',
        authorization: `Bearer ${KEY}`,
        body: { model: 'text-embedding-3-small', input: texts, encoding_format: 'float' },
      },
    ]);
    expectClose(plain(vectors), texts.map(unitFakeVector));
    expect(e.dimension).toBe(8);
  });

  it('accepts a base URL that already ends in /v1, and sends no key when none is set', async () => {
    const server = await serve(openAiHandler());
    const e = make({ backend: 'openai', url: `${server.url}/v1`, model: 'nomic-embed-text-v1.5' });
    await e.embedQueries(['disk full']);
    expect(server.requests[0]).toMatchObject({
      path: '/v1/embeddings',
      authorization: undefined,
      body: { input: ['search_query: disk full'] },
    });
  });

  it('never shows the key, even when the server echoes it', async () => {
    const server = await serve((req, res) =>
      sendJson(res, 401, {
        error: { message: `Incorrect API key provided: ${req.authorization?.slice(7)}` },
      }),
    );
    const e = make({ backend: 'openai', url: server.url, key: KEY });
    const err = (await e.embedQueries(['x']).catch((x: unknown) => x)) as AppError;
    expect(err.message).toBe(
      `openai embeddings: HTTP 401 (check WATCHKEEPER_EMBEDDINGS_KEY) from ${server.url}/v1/embeddings: ` +
        '{"error":{"message":"Incorrect API key provided: [key]"}}',
    );
    expect(JSON.stringify({ ...err, stack: err.stack })).not.toContain(KEY);
  });

  it('says when it is rate limited and when to try again', async () => {
    const server = await serve((_req, res) =>
      sendJson(
        res,
        429,
        { error: { message: 'Rate limit reached for text-embedding-3-small', type: 'requests' } },
        { 'retry-after': '7' },
      ),
    );
    const e = make({ backend: 'openai', url: server.url, key: KEY });
    await expect(e.embedQueries(['x'])).rejects.toMatchObject({
      code: 'embedding_failed',
      message: expect.stringMatching(
        /^openai embeddings: HTTP 429 \(rate limited\) from .*: .*Rate limit reached/,
      ),
      data: { reason: 'http', status: 429, retryAfterMs: 7000 },
    });
  });

  it('refuses an answer whose indexes do not cover the inputs', async () => {
    const server = await serve((_req, res) =>
      sendJson(res, 200, {
        data: [
          { index: 0, embedding: [1, 2] },
          { index: 0, embedding: [3, 4] },
        ],
      }),
    );
    const e = make({ backend: 'openai', url: server.url, key: KEY });
    await expect(e.embedQueries(['a', 'b'])).rejects.toMatchObject({
      message: expect.stringContaining('unexpected answer'),
    });
  });
});

describe.each([
  { backend: 'ollama' as const, path: '/api/embed' },
  { backend: 'openai' as const, path: '/v1/embeddings' },
])('$backend backend that is down, slow or failing', ({ backend, path }) => {
  it('reports a refused connection at once', async () => {
    const url = await deadAddress();
    const e = make({ backend, url, key: KEY });
    await expect(e.embedQueries(['x'])).rejects.toMatchObject({
      code: 'embedding_failed',
      message: `${backend} embeddings: cannot reach ${url}${path}: connect ECONNREFUSED ${url.slice(7)}`,
      data: { reason: 'unreachable', errno: 'ECONNREFUSED' },
    });
  });

  it('gives up on a server that never answers after the timeout', async () => {
    // Takes the request, then says nothing.
    const server = await serve(() => {});
    const e = make({ backend, url: server.url, key: KEY, timeoutMs: 300 });
    await expect(e.embedQueries(['x'])).rejects.toMatchObject({
      code: 'embedding_failed',
      message: `${backend} embeddings: no answer from ${server.url}${path} within 300ms`,
      data: { reason: 'timeout' },
    });
  });

  it('gives up on a server that starts an answer and stalls', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"embeddings": [[0.1,');
    });
    const e = make({ backend, url: server.url, key: KEY, timeoutMs: 300 });
    await expect(e.embedQueries(['x'])).rejects.toMatchObject({
      message: `${backend} embeddings: no answer from ${server.url}${path} within 300ms`,
    });
  });

  it('reports a server error with its status and the head of its body', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`out of memory\nwhile loading model${' '.repeat(10)}${'x'.repeat(400)}`);
    });
    const e = make({ backend, url: server.url, key: KEY });
    const err = (await e.embedQueries(['x']).catch((x: unknown) => x)) as AppError;
    expect(err.code).toBe('embedding_failed');
    expect(err.message).toBe(
      `${backend} embeddings: HTTP 500 from ${server.url}${path}: ` +
        `out of memory while loading model${' '.repeat(10)}${'x'.repeat(200 - 43)}…`,
    );
  });

  it('is not reached for an empty text', async () => {
    const server = await serve(ollamaHandler);
    const e = make({ backend, url: server.url, key: KEY });
    await expect(e.embedDocuments(['ok', ''])).rejects.toMatchObject({
      code: 'invalid_input',
      message: 'text 1 to embed is empty',
    });
    expect(server.requests).toEqual([]);
  });
});
