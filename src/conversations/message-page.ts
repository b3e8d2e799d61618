/**
 * Reading a conversation's messages a page at a time. A page is bounded twice: by count (the
 * caller's limit) and by bytes (MAX_PAGE_BYTES of messages as JSON), so no answer grows with the
 * conversation; a cursor names where the next, older page ends. The API, the CLI and the context
 * answer read through here.
 */
import { type ConversationStore, type MessageRow, messageJson } from '../db/index.js';
import { AppError } from '../errors.js';
import { MAX_SEQ } from './input.js';

/** Most bytes the messages of one answer take as JSON (a 100,000-character message fits). */
export const MAX_PAGE_BYTES = 4 * 1024 * 1024;

export interface MessagePage {
  /** Oldest first. */
  messages: MessageRow[];
  /** Older messages of the span that did not fit (0 when none). */
  omitted: number;
  /** Pass as `cursor` to read the page before this one; null when this page reaches the start. */
  nextCursor: string | null;
}

/** The `cursor` a client sent back (the `next_cursor` of a page) as the seq the page ends before. */
export function parseCursor(value: string, field = 'cursor'): number {
  const n = /^\d{1,10}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= MAX_SEQ + 1)) {
    throw new AppError(
      'usage',
      `${field}: "${value.slice(0, 40)}" is not a cursor; pass the next_cursor of the page before`,
      { data: { field } },
    );
  }
  return n;
}

/** Bytes of one message in an answer (its JSON and a separating comma). */
function jsonBytes(m: MessageRow): number {
  return Buffer.byteLength(JSON.stringify(messageJson(m))) + 1;
}

/**
 * The newest messages with seq in [from, before), at most `limit` and MAX_PAGE_BYTES of JSON
 * (always one at least, so paging never stalls).
 */
export async function readMessagePage(
  store: Pick<ConversationStore, 'span'>,
  id: string,
  o: { limit: number; before: number; from?: number; maxBytes?: number },
): Promise<MessagePage> {
  const from = o.from ?? 0;
  const maxBytes = o.maxBytes ?? MAX_PAGE_BYTES;
  // The store stops at content bytes; JSON only adds to them, so the exact cut is made here.
  const span = await store.span(id, {
    from,
    to: o.before - 1,
    limit: o.limit,
    maxBytes,
    keep: 'newest',
  });
  let first = span.messages.length - 1;
  let bytes = first >= 0 ? jsonBytes(span.messages[first]!) : 0;
  while (first > 0) {
    const more = jsonBytes(span.messages[first - 1]!);
    if (bytes + more > maxBytes) break;
    bytes += more;
    first -= 1;
  }
  const messages = first > 0 ? span.messages.slice(first) : span.messages;
  const oldest = messages[0]?.seq;
  if (oldest === undefined) return { messages, omitted: 0, nextCursor: null };
  // Seqs have no gaps, so what was left out is every seq from `from` to the oldest shown.
  return {
    messages,
    omitted: oldest - from,
    nextCursor: span.more || first > 0 ? String(oldest) : null,
  };
}
