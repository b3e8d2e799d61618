/**
 * Following a chat's run as it happens: each session of the run (the first, then any tier it
 * escalated to) is read from the live feed that the session page follows, and the main agent's
 * text is handed on block by block. Following never touches the run: a client that goes away
 * only stops the reading (`signal`); the run goes on and is recorded as any other.
 */
import type { SessionStatus } from '../db/index.js';
import type { FeedItem } from '../runner/live-feed.js';
import type { RunTicket } from '../runner/scheduler.js';
import type { WebDeps } from './deps.js';

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface RunReply {
  /** The ticket as the run ended (null when the request was forgotten, or the client left). */
  ticket: RunTicket | null;
  /** The last session's status; null when no session ran. */
  status: SessionStatus | null;
  sessionIds: number[];
  /** Summed over the sessions' result lines; null when none reported usage. */
  usage: ChatUsage | null;
}

/** Blocks of text are parted by a blank line, in the text handed on as in the whole reply. */
const BLOCK_SEPARATOR = '\n\n';

const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** The CLI's usage (Anthropic's counts) as OpenAI counts it: cached input is input too. */
function usageOf(raw: Record<string, unknown> | null | undefined): ChatUsage | null {
  if (!raw) return null;
  const prompt =
    count(raw.input_tokens) +
    count(raw.cache_creation_input_tokens) +
    count(raw.cache_read_input_tokens);
  const completion = count(raw.output_tokens);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
}

function addUsage(a: ChatUsage | null, b: ChatUsage | null): ChatUsage | null {
  if (!a || !b) return a ?? b;
  return {
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
  };
}

/** The main agent's text blocks of a feed item (a subagent's text is its own business). */
function textBlocks(item: FeedItem): string[] {
  if (item.kind !== 'message' || item.message.type !== 'assistant') return [];
  if (item.message.parentToolUseId !== null) return [];
  return item.message.content.flatMap((b) => (b.type === 'text' && b.text !== '' ? [b.text] : []));
}

/**
 * Follows `ticket`'s run until it ends (or `signal` aborts), handing each piece of text to
 * `onText` as it arrives; the pieces joined are the whole reply.
 */
export async function followRun(
  deps: Pick<WebDeps, 'feed' | 'runner' | 'stores'>,
  ticket: RunTicket,
  onText: (piece: string) => void,
  signal?: AbortSignal,
): Promise<RunReply> {
  let said = false;
  const say = (text: string) => {
    onText(said ? `${BLOCK_SEPARATOR}${text}` : text);
    said = true;
  };
  const reply: RunReply = { ticket: null, status: null, sessionIds: [], usage: null };

  /** One session, from the feed while it is live, else from its stored row. */
  const followSession = (id: number) =>
    new Promise<void>((resolve) => {
      let finished = false;
      let off: (() => void) | null = null;
      const finish = (status: SessionStatus | null) => {
        if (finished) return;
        finished = true;
        off?.();
        signal?.removeEventListener('abort', stop);
        reply.status = status;
        resolve();
      };
      const stop = () => finish(null);
      off = deps.feed.subscribe(id, (item) => {
        for (const text of textBlocks(item)) say(text);
        if (item.kind === 'message' && item.message.type === 'result') {
          reply.usage = addUsage(reply.usage, usageOf(item.message.usage));
        }
        if (item.kind === 'end') finish(item.status);
      });
      if (!off) {
        // It ended before it could be followed: what it stored is its final text.
        const row = deps.stores.sessions.get(id);
        if (row?.response) say(row.response);
        reply.usage = addUsage(reply.usage, usageOf(row?.usage));
        return finish(row?.status ?? null);
      }
      if (finished) off();
      else signal?.addEventListener('abort', stop);
    });

  let settled: RunTicket | null | undefined;
  let wake: (() => void) | null = null;
  const poke = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  // A session opening announces itself before the ticket lists it; the check after the wake
  // runs once the runner has listed it (the same synchronous step).
  const offChange = deps.feed.onSessionChange(poke);
  void deps.runner.settled(ticket.id).then((t) => {
    settled = t;
    poke();
  });
  signal?.addEventListener('abort', poke);
  try {
    while (!signal?.aborted) {
      const id = ticket.sessionIds[reply.sessionIds.length];
      if (id !== undefined) {
        reply.sessionIds.push(id);
        await followSession(id);
        continue;
      }
      if (settled !== undefined) {
        reply.ticket = settled;
        break;
      }
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    offChange();
    signal?.removeEventListener('abort', poke);
  }
  return reply;
}
