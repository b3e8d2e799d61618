/**
 * Claude Code as a conversation source: `watchkeeper hook user-prompt-submit` posts the user's
 * prompt to a running watchkeeper and prints the relevant memories as `additionalContext`;
 * `watchkeeper hook stop` posts the assistant's last message. Both talk to WATCHKEEPER_URL
 * (default http://127.0.0.1:8080) with WATCHKEEPER_AUTH_TOKEN, give up after a few seconds
 * (well within the hook's time limit) and always exit 0: the user's session never waits on, or
 * breaks because of, watchkeeper.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

import { stripControlCharacters } from '../../text-rules.js';
import type { CliIo } from '../io.js';

export const DEFAULT_URL = 'http://127.0.0.1:8080';
/** The whole exchange, both requests: far below UserPromptSubmit's 30 s default. */
const DEADLINE_MS = 4000;
const MAX_CONTENT = 100_000;
const MAX_QUERY = 2000;
const DEFAULT_SCOPE = 'claude-code';

interface Answer {
  status: number;
  body: unknown;
}

/** One JSON request without keep-alive (the hook process must exit at once afterwards). */
function requestJson(
  url: URL,
  method: 'GET' | 'POST',
  token: string | undefined,
  body: unknown,
  deadline: number,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      url,
      {
        method,
        agent: false,
        timeout: Math.max(1, deadline - Date.now()),
        headers: {
          accept: 'application/json',
          ...(payload
            ? { 'content-type': 'application/json', 'content-length': payload.length }
            : {}),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = null;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON: the status says enough
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer in time')));
    req.on('error', reject);
    req.end(payload);
  });
}

/** The conversation id of a Claude Code session: `claude-code-SESSION`. */
export function hookConversationId(sessionId: unknown): string {
  const raw = typeof sessionId === 'string' && sessionId !== '' ? sessionId : 'unknown-session';
  return `claude-code-${raw.replace(/[^A-Za-z0-9._:-]/g, '-')}`.slice(0, 128);
}

/** The memories as the context Claude gets, in factual phrasing (hooks docs' advice). */
export function memoriesContext(
  memories: { observation: string; importance?: string; source_ref?: string | null }[],
): string {
  if (memories.length === 0) return '';
  return [
    'Memories from earlier conversations (watchkeeper) that may be relevant:',
    ...memories.map(
      (m) =>
        `- ${m.observation}${m.importance && m.importance !== 'normal' ? ` (importance: ${m.importance})` : ''}`,
    ),
  ].join('\n');
}

function clean(text: string, max: number): string {
  const t = stripControlCharacters(text.replace(/\r\n/g, '\n'));
  return t.length > max ? t.slice(0, max) : t;
}

/**
 * Runs one hook with its parsed payload. Returns the exit code (always 0); what Claude should
 * see goes to stdout, why nothing happened to stderr (Claude Code keeps that in its debug log).
 */
export async function conversationHook(
  event: 'user-prompt-submit' | 'stop',
  payload: unknown,
  io: CliIo,
): Promise<number> {
  const deadline = Date.now() + DEADLINE_MS;
  const p = (typeof payload === 'object' && payload !== null ? payload : {}) as Record<
    string,
    unknown
  >;
  const text = event === 'stop' ? p.last_assistant_message : p.prompt;
  if (typeof text !== 'string' || text.trim() === '') return 0;
  let base: URL;
  try {
    base = new URL(io.env.WATCHKEEPER_URL?.trim() || DEFAULT_URL);
  } catch {
    io.stderr('watchkeeper hook: WATCHKEEPER_URL is not a URL; nothing sent\n');
    return 0;
  }
  const token = io.env.WATCHKEEPER_AUTH_TOKEN?.trim() || undefined;
  const id = hookConversationId(p.session_id);
  const api = (path: string) => {
    const url = new URL(base);
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/api/v1/conversations/${encodeURIComponent(id)}${path}`;
    return url;
  };
  try {
    const posted = await requestJson(
      api('/messages'),
      'POST',
      token,
      {
        role: event === 'stop' ? 'assistant' : 'user',
        content: clean(text, MAX_CONTENT),
        scope: io.env.WATCHKEEPER_HOOK_SCOPE?.trim() || DEFAULT_SCOPE,
      },
      deadline,
    );
    if (posted.status >= 300) {
      const message = (posted.body as { error?: { message?: string } } | null)?.error?.message;
      io.stderr(`watchkeeper hook: HTTP ${posted.status}${message ? `: ${message}` : ''}\n`);
      return 0;
    }
    if (event === 'stop') return 0;
    const context = api('/context');
    context.searchParams.set('query', clean(text, MAX_QUERY));
    const answer = await requestJson(context, 'GET', token, undefined, deadline);
    const memories = (answer.body as { memories?: unknown } | null)?.memories;
    if (answer.status !== 200 || !Array.isArray(memories)) return 0;
    const additionalContext = memoriesContext(
      memories.filter(
        (m): m is { observation: string } =>
          typeof (m as { observation?: unknown }).observation === 'string',
      ),
    );
    if (additionalContext !== '') {
      io.stdout(
        `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext } })}\n`,
      );
    }
  } catch (err) {
    // watchkeeper is down or slow: the session goes on without it.
    io.stderr(`watchkeeper hook: ${base.origin} did not answer (${(err as Error).message})\n`);
  }
  return 0;
}
