/**
 * A running session's activity log as Server-Sent Events: `entry` events carry the HTML of its
 * new log lines (id = the feed's sequence number, so a reconnect with Last-Event-ID resumes
 * without duplicates), then one `end` event, after which the stream closes. A session that is not
 * live gets the `end` event at once.
 */
import type { Context } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';

import type { SessionRow, SessionStatus } from '../db/index.js';
import type { FeedItem } from '../runner/live-feed.js';
import type { WebDeps } from './deps.js';
import { renderView } from './render.js';
import { entriesFromFeedItem } from './session-log.js';

export const SSE_RETRY_MS = 3_000;
/**
 * Items waiting to be written to one client. A client that falls this far behind is dropped; its
 * EventSource reconnects with Last-Event-ID and catches up from the feed's own bounded buffer.
 */
export const MAX_PENDING_ITEMS = 2_000;
/** A comment line this often keeps proxies from closing an idle stream. */
export const KEEPALIVE_MS = 20_000;

/** The Last-Event-ID header as a feed sequence number; 0 (from the start) when absent or bad. */
export function lastEventId(header: string | undefined): number {
  const v = header?.trim() ?? '';
  return /^\d{1,15}$/.test(v) ? Number(v) : 0;
}

/** Resolves true when `arm`'s callback is called, false after `ms`. */
export function wakeOrTimeout(arm: (wake: () => void) => void, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    arm(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * The SSE response for `session`'s live log (see the module comment). Unsubscribes from the
 * feed when the client goes away or the session ends.
 */
export function streamSessionLog(c: Context, deps: WebDeps, session: SessionRow): Response {
  const afterSeq = lastEventId(c.req.header('Last-Event-ID'));
  const endHtml = (status: SessionStatus) =>
    renderView(c, 'partials/session-end', { id: session.id, status }).trimEnd();
  const entryHtml = (item: FeedItem) =>
    entriesFromFeedItem(item)
      .map((e) => renderView(c, 'partials/log-entry', { e }).trimEnd())
      .join('\n');

  return streamSSE(c, async (stream: SSEStreamingApi) => {
    await stream.write(`retry: ${SSE_RETRY_MS}\n\n`);
    const pending: FeedItem[] = [];
    let overflowed = false;
    let wake: (() => void) | null = null;
    const unsubscribe = deps.feed.subscribe(
      session.id,
      (item) => {
        if (pending.length < MAX_PENDING_ITEMS) pending.push(item);
        else overflowed = true;
        wake?.();
      },
      afterSeq,
    );
    if (!unsubscribe) {
      const status = (await deps.stores.sessions.getAwaited(session.id))?.status ?? session.status;
      await stream.writeSSE({ event: 'end', data: endHtml(status) });
      return;
    }
    stream.onAbort(() => {
      unsubscribe();
      wake?.();
    });
    try {
      while (!stream.aborted) {
        const item = pending.shift();
        if (!item) {
          if (overflowed) return;
          const woke = await wakeOrTimeout((w) => (wake = w), KEEPALIVE_MS);
          wake = null;
          // A comment line keeps proxies from closing an idle connection.
          if (!woke && !stream.aborted) await stream.write(': keepalive\n\n');
          continue;
        }
        if (item.kind === 'end') {
          await stream.writeSSE({ event: 'end', id: String(item.seq), data: endHtml(item.status) });
          return;
        }
        const html = entryHtml(item);
        if (html !== '')
          await stream.writeSSE({ event: 'entry', id: String(item.seq), data: html });
      }
    } finally {
      unsubscribe();
    }
  });
}
