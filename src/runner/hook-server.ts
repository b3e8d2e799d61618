/**
 * A loopback HTTP endpoint for the CLI's `PostToolUse` hook (an `http` hook in the session's
 * settings file), served by the process that runs the session, so that the memory search it
 * answers with uses the warm model and index of that process instead of a cold start per tool
 * call. Each session gets its own random bearer token; the token names the session.
 *
 * It never fails a tool call: any error, an unknown token, a body over the limit or a slow
 * search yields an empty answer (`{}`), which the CLI treats as "nothing to add".
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Logger } from '../log.js';
import type { ToolCall, ToolSurfacing } from '../knowledge/index.js';

export const POST_TOOL_USE_PATH = '/hooks/post-tool-use';
/** Tool output can be large; only its head is used, but the JSON must be read whole. */
const MAX_BODY = 4 * 1024 * 1024;
/** The answer must come fast (the model waits on it); past this it is empty. */
const ANSWER_WITHIN_MS = 1500;

export interface HookRegistration {
  url: string;
  token: string;
  release(): void;
}

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        resolve(null);
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(null));
  });
}

function toolCall(body: string): ToolCall | null {
  try {
    const p = JSON.parse(body) as Record<string, unknown>;
    if (typeof p.tool_name !== 'string') return null;
    return { toolName: p.tool_name, toolInput: p.tool_input, toolResponse: p.tool_response };
  } catch {
    return null;
  }
}

export function createHookServer(deps: { tools: ToolSurfacing; log: Logger }) {
  const sessions = new Map<string, number>();
  let server: Server | null = null;
  let listening: Promise<number> | null = null;

  const answer = async (token: string, body: string | null): Promise<string> => {
    // 192 random bits: a map look-up by token leaks nothing worth a constant-time compare.
    const sessionId = sessions.get(token);
    if (sessionId === undefined || body === null) return '{}';
    const call = toolCall(body);
    if (!call) return '{}';
    const timeout = new Promise<null>((r) => setTimeout(() => r(null), ANSWER_WITHIN_MS).unref());
    const found = await Promise.race([deps.tools.surface(sessionId, call), timeout]);
    if (!found || found.text === '') return '{}';
    return JSON.stringify({
      hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: found.text },
    });
  };

  const start = (): Promise<number> => {
    listening ??= new Promise((resolve, reject) => {
      server = createServer((req, res) => {
        const auth = req.headers.authorization ?? '';
        const token = auth.startsWith('Bearer ') ? auth.slice(7) : '';
        const done = (text: string) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(text);
        };
        if (req.method !== 'POST' || req.url !== POST_TOOL_USE_PATH) {
          res.writeHead(404).end();
          return;
        }
        readBody(req)
          .then((body) => answer(token, body))
          .then(done, (err: unknown) => {
            deps.log.warn('post-tool-use hook failed', { error: (err as Error).message });
            done('{}');
          });
      });
      server.on('error', reject);
      server.listen(0, '127.0.0.1', () => resolve((server!.address() as AddressInfo).port));
    });
    return listening;
  };

  return {
    /** A URL and token for one session's hook; released when the session ends. */
    async register(sessionId: number): Promise<HookRegistration> {
      const port = await start();
      const token = randomBytes(24).toString('base64url');
      sessions.set(token, sessionId);
      return {
        url: `http://127.0.0.1:${port}${POST_TOOL_USE_PATH}`,
        token,
        release: () => sessions.delete(token),
      };
    },

    close(): Promise<void> {
      return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
    },
  };
}

export type HookServer = ReturnType<typeof createHookServer>;
