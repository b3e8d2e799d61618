/**
 * A chat's answer streamed as OpenAI streams one: Server-Sent Events of `data:
 * {chat.completion.chunk}` lines, the first at once (the role; the run may wait in the queue),
 * one per block of text as the session says it, a last one with `finish_reason`, the usage
 * chunk when asked for, then `data: [DONE]`. A run that does not complete ends the stream with
 * `data: {"error": ...}` (OpenAI's clients raise it). The client going away stops the stream,
 * never the run.
 */
import type { Context } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';

import type { RunTicket } from '../runner/scheduler.js';
import type { OpenAiError } from './chat-errors.js';
import { followRun, type RunReply } from './chat-follow.js';
import { type ChatHead, chunkJson, runFailure, usageChunkJson } from './chat-reply.js';
import type { WebDeps } from './deps.js';
import { KEEPALIVE_MS, wakeOrTimeout } from './session-stream.js';

const INTERNAL: OpenAiError = {
  message: 'internal error; see the watchkeeper log',
  type: 'server_error',
  code: null,
  param: null,
};

export function streamChat(
  c: Context,
  deps: Pick<WebDeps, 'feed' | 'runner' | 'stores' | 'log'>,
  head: ChatHead & { ticket: RunTicket },
  includeUsage: boolean,
): Response {
  return streamSSE(c, async (stream: SSEStreamingApi) => {
    const send = (value: unknown) => stream.writeSSE({ data: JSON.stringify(value) });
    const gone = new AbortController();
    stream.onAbort(() => gone.abort());
    const pieces: string[] = [];
    let wake: (() => void) | null = null;
    // Set when following ends: the reply, or a failure to follow (logged).
    const outcome: { reply: RunReply | null; broken: boolean } = { reply: null, broken: false };
    void followRun(
      deps,
      head.ticket,
      (piece) => {
        pieces.push(piece);
        wake?.();
      },
      gone.signal,
    ).then(
      (r) => {
        outcome.reply = r;
        wake?.();
      },
      (err: Error) => {
        deps.log.error('chat failed', { request: head.ticket.id, error: err });
        outcome.broken = true;
        wake?.();
      },
    );

    await send(chunkJson(head, { role: 'assistant', content: '' }));
    while (!stream.aborted) {
      const piece = pieces.shift();
      if (piece !== undefined) {
        await send(chunkJson(head, { content: piece }));
        continue;
      }
      if (outcome.reply || outcome.broken) break;
      const woke = await wakeOrTimeout((w) => (wake = w), KEEPALIVE_MS);
      wake = null;
      if (!woke && !stream.aborted) await stream.write(': keepalive\n\n');
    }
    if (stream.aborted) return;
    const ended = outcome.reply;
    const failure = ended ? await runFailure(deps.stores, ended) : INTERNAL;
    if (failure) {
      await send({ error: failure });
      return;
    }
    if (!ended) return;
    await send(chunkJson(head, {}, { reply: ended }));
    if (includeUsage) await send(usageChunkJson(head, ended.usage));
    await stream.writeSSE({ data: '[DONE]' });
  });
}
