/**
 * A scripted Anthropic Messages API on loopback: the real Claude CLI, pointed at it through
 * ANTHROPIC_BASE_URL, runs real tools and prints real stream-json while the "model" answers from
 * a script. Used by demo mode and the end-to-end tests; it is a simulation and says so.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type SimBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; name: string; input: Record<string, unknown> };

export interface SimRequest {
  model: string;
  /** The system prompt, text blocks joined with newlines. */
  system: string;
  /** Assistant turns so far in this conversation (0 for the first call). */
  turn: number;
  /** tool_result blocks of the last user message. */
  toolResults: { content: string; isError: boolean }[];
  /** The first user text that is not a system reminder (the -p prompt). */
  prompt: string;
  stream: boolean;
  body: Record<string, unknown>;
}

export type SimScript = (request: SimRequest) => SimBlock[] | Promise<SimBlock[]>;

export interface SimulatedModel {
  url: string;
  /** The last `keepRequests` /v1/messages requests received (default 200), oldest first. */
  requests: SimRequest[];
  close(): Promise<void>;
}

const MAX_BODY = 32 * 1024 * 1024;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: { type?: string; text?: unknown; content?: unknown }) =>
      b.type === 'text' && typeof b.text === 'string'
        ? b.text
        : b.type === 'tool_result'
          ? textOf(b.content)
          : '',
    )
    .join('\n');
}

export function toSimRequest(body: Record<string, unknown>): SimRequest {
  const messages = Array.isArray(body.messages)
    ? (body.messages as { role?: string; content?: unknown }[])
    : [];
  // The CLI may add `system` messages after a turn (an MCP server's instructions once it has
  // connected): the tool results are those of the last turn that is not one.
  const last = messages.filter((m) => m.role !== 'system').at(-1);
  const toolResults =
    last?.role === 'user' && Array.isArray(last.content)
      ? (last.content as { type?: string; content?: unknown; is_error?: unknown }[])
          .filter((b) => b.type === 'tool_result')
          .map((b) => ({ content: textOf(b.content), isError: b.is_error === true }))
      : [];
  let prompt = '';
  for (const m of messages) {
    if (m.role !== 'user') continue;
    const blocks = Array.isArray(m.content) ? m.content : [{ type: 'text', text: m.content }];
    const text = (blocks as { type?: string; text?: unknown }[]).find(
      (b) =>
        b.type === 'text' && typeof b.text === 'string' && !b.text.startsWith('<system-reminder>'),
    );
    if (text) {
      prompt = text.text as string;
      break;
    }
  }
  return {
    model: typeof body.model === 'string' ? body.model : '',
    system: Array.isArray(body.system)
      ? body.system.map((s: { text?: string }) => s.text ?? '').join('\n')
      : String(body.system ?? ''),
    turn: messages.filter((m) => m.role === 'assistant').length,
    toolResults,
    prompt,
    stream: body.stream === true,
    body,
  };
}

let ids = 0;

function sse(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function streamReply(res: ServerResponse, model: string, blocks: SimBlock[]): void {
  const id = `msg_sim_${++ids}`;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  sse(res, 'message_start', {
    type: 'message_start',
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 100, output_tokens: 1 },
    },
  });
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      sse(res, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '' },
      });
      // Deltas of a few dozen characters, as a real model streams them.
      for (let i = 0; i < block.text.length; i += 48) {
        sse(res, 'content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'text_delta', text: block.text.slice(i, i + 48) },
        });
      }
    } else {
      sse(res, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: {
          type: 'tool_use',
          id: `toolu_sim_${ids}_${index}`,
          name: block.name,
          input: {},
        },
      });
      sse(res, 'content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
      });
    }
    sse(res, 'content_block_stop', { type: 'content_block_stop', index });
  });
  const toolUse = blocks.some((b) => b.type === 'tool_use');
  sse(res, 'message_delta', {
    type: 'message_delta',
    delta: { stop_reason: toolUse ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: {
      // About four characters a token, counted whole as the real API does.
      output_tokens:
        20 +
        blocks.reduce((n, b) => n + (b.type === 'text' ? Math.ceil(b.text.length / 4) : 20), 0),
    },
  });
  sse(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

function jsonReply(res: ServerResponse, model: string, blocks: SimBlock[]): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      id: `msg_sim_${++ids}`,
      type: 'message',
      role: 'assistant',
      model,
      content: blocks.map((b, i) =>
        b.type === 'text'
          ? b
          : { type: 'tool_use', id: `toolu_sim_${ids}_${i}`, name: b.name, input: b.input },
      ),
      stop_reason: blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 100, output_tokens: 20 },
    }),
  );
}

function apiError(res: ServerResponse, status: number, type: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ type: 'error', error: { type, message } }));
}

async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the simulated model on 127.0.0.1 (an ephemeral port unless one is given). */
export async function startSimulatedModel(
  script: SimScript,
  opts: {
    port?: number;
    /** How many requests to keep in `requests` (each holds the CLI's whole system prompt). */
    keepRequests?: number;
  } = {},
): Promise<SimulatedModel> {
  const keep = opts.keepRequests ?? 200;
  const requests: SimRequest[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method === 'HEAD' || (req.method === 'GET' && path === '/')) {
        res.writeHead(200).end();
        return;
      }
      if (req.method !== 'POST' || path !== '/v1/messages') {
        apiError(
          res,
          404,
          'not_found_error',
          `the simulated model serves POST /v1/messages only, not ${req.method} ${path}`,
        );
        return;
      }
      const raw = await readBody(req);
      if (raw === null) return apiError(res, 413, 'request_too_large', 'request body over 32 MB');
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return apiError(res, 400, 'invalid_request_error', 'body is not JSON');
      }
      const request = toSimRequest(body);
      if (keep > 0) {
        requests.push(request);
        if (requests.length > keep) requests.shift();
      }
      let blocks: SimBlock[];
      try {
        blocks = await script(request);
      } catch (err) {
        return apiError(
          res,
          500,
          'api_error',
          `simulated model script failed: ${(err as Error).message}`,
        );
      }
      if (blocks.length === 0)
        blocks = [{ type: 'text', text: '(the simulated model has nothing more to say)' }];
      if (request.stream) streamReply(res, request.model, blocks);
      else jsonReply(res, request.model, blocks);
    })().catch((err: Error) => {
      if (!res.headersSent) apiError(res, 500, 'api_error', err.message);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
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
