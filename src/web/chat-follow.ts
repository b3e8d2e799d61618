/**
 * Following a chat's run as it happens: each session of the run (the first, then any tier it
 * escalated to) is read from the live feed that the session page follows, and the main agent's
 * text is handed on block by block. Following never touches the run: a client that goes away
 * only stops the reading (`signal`); the run goes on and is recorded as any other.
 */
import { type SessionStatus, sumTokens, type TokenCounts, tokensOf } from '../db/index.js';
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

/** The run's token counts as OpenAI counts them: cached input is input too. */
function chatUsage(tokens: TokenCounts | null): ChatUsage | null {
  if (!tokens) return null;
  const prompt = tokens.input + tokens.cacheRead + tokens.cacheWrite;
  return {
    prompt_tokens: prompt,
    completion_tokens: tokens.output,
    total_tokens: prompt + tokens.output,
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
  /** Each session's result line's counts (null when it reported none). */
  const counted: (TokenCounts | null)[] = [];

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
          counted.push(tokensOf(item.message.usage ?? null));
        }
        if (item.kind === 'end') finish(item.status);
      });
      if (!off) {
        // It ended before it could be followed: what it stored is its final text.
        void deps.stores.sessions.getAwaited(id).then(
          (row) => {
            if (row?.response) say(row.response);
            counted.push(tokensOf(row?.usage ?? null));
            finish(row?.status ?? null);
          },
          () => finish(null),
        );
        return;
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
  reply.usage = chatUsage(sumTokens(counted));
  return reply;
}
