/**
 * Small HTTP servers on loopback standing in for Ollama and OpenAI-compatible embedding servers.
 * They are fakes at a seam that cannot be real here (no such server runs on this machine and
 * nothing may leave it); they speak the real request and response shapes of both APIs.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
}

export type Handler = (req: SeenRequest, res: ServerResponse) => void;

export interface FakeBackend {
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export async function startFakeBackend(handler: Handler): Promise<FakeBackend> {
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const seen: SeenRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        authorization: req.headers.authorization,
        body,
      };
      requests.push(seen);
      handler(seen, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An address where nothing listens: connections are refused at once. */
export async function deadAddress(): Promise<string> {
  const probe = await startFakeBackend(() => {});
  await probe.close();
  return probe.url;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/**
 * A deterministic, deliberately unnormalised 8-d vector per text, so a test can tell which text
 * a vector belongs to and that the client scales it to unit length.
 */
export function fakeVector(text: string): number[] {
  let h = 7;
  for (const ch of text) h = (h * 31 + ch.charCodeAt(0)) % 1009;
  return [3 + (h % 5), 1, 2, h % 7, 4, 0, 1, (h % 3) + 1];
}

/** The unit vector the client should return for `text`. */
export function unitFakeVector(text: string): number[] {
  const v = fakeVector(text);
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return v.map((x) => x / n);
}

/** Ollama: POST /api/embed {model, input} -> {model, embeddings, ...}. */
export const ollamaHandler: Handler = (req, res) => {
  const { model, input } = req.body as { model: string; input: string[] };
  if (req.method !== 'POST' || req.path !== '/api/embed') {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('404 page not found');
    return;
  }
  sendJson(res, 200, {
    model,
    embeddings: input.map(fakeVector),
    total_duration: 14_143_917,
    load_duration: 1_019_500,
    prompt_eval_count: input.length * 4,
  });
};

/** OpenAI: POST /v1/embeddings {model, input, encoding_format} -> {object, data, model, usage}. */
export function openAiHandler(options: { key?: string; reverse?: boolean } = {}): Handler {
  return (req, res) => {
    if (req.method !== 'POST' || req.path !== '/v1/embeddings') {
      sendJson(res, 404, {
        error: { message: 'Not found', type: 'invalid_request_error', code: null },
      });
      return;
    }
    if (options.key !== undefined && req.authorization !== `Bearer ${options.key}`) {
      sendJson(res, 401, {
        error: {
          message: 'Incorrect API key provided.',
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      });
      return;
    }
    const { model, input } = req.body as { model: string; input: string[] };
    const data = input.map((text, index) => ({
      object: 'embedding',
      index,
      embedding: fakeVector(text),
    }));
    if (options.reverse) data.reverse();
    sendJson(res, 200, {
      object: 'list',
      data,
      model,
      usage: { prompt_tokens: input.length * 4, total_tokens: input.length * 4 },
    });
  };
}
