/**
 * The OpenAI objects a chat's answer is made of: the whole `chat.completion`, its streamed
 * `chat.completion.chunk`s, and the error a run that did not complete ends with. Each carries
 * the run's request id, and the whole answer (and the last chunk) the run's sessions under
 * `watchkeeper`, for finding them on the dashboard or through /api/v1/sessions.
 */
import type { Stores } from '../db/index.js';
import type { RunTicket } from '../runner/scheduler.js';
import type { ChatUsage, RunReply } from './chat-follow.js';
import type { OpenAiError } from './chat-errors.js';

export interface ChatHead {
  ticket: RunTicket;
  model: string;
  /** When the chat was asked, epoch seconds. */
  created: number;
}

const idOf = (head: ChatHead) => `chatcmpl-${head.ticket.id}`;
const about = (head: ChatHead, reply: RunReply) => ({
  request_id: head.ticket.id,
  session_ids: reply.sessionIds,
});

/** The run's failure to answer, or null when its last session completed. */
export async function runFailure(
  stores: Pick<Stores, 'sessions'>,
  reply: RunReply,
): Promise<OpenAiError | null> {
  if (reply.status === 'completed') return null;
  const last = reply.sessionIds.at(-1);
  if (last === undefined || reply.status === null) {
    const state = reply.ticket?.state ?? 'forgotten';
    return {
      message: reply.ticket?.error ?? `the run ended (${state}) before any session started`,
      type: 'server_error',
      code: `run_${state}`,
      param: null,
    };
  }
  const error = (await stores.sessions.getAwaited(last))?.error;
  return {
    message: `session ${last} ended ${reply.status}${error ? `: ${error}` : ''} (see /sessions/${last})`,
    type: 'server_error',
    code: `session_${reply.status}`,
    param: null,
  };
}

export function completionJson(head: ChatHead, content: string, reply: RunReply) {
  return {
    id: idOf(head),
    object: 'chat.completion' as const,
    created: head.created,
    model: head.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant' as const, content, refusal: null },
        logprobs: null,
        finish_reason: 'stop' as const,
      },
    ],
    ...(reply.usage ? { usage: reply.usage } : {}),
    watchkeeper: about(head, reply),
  };
}

/** One streamed chunk: a piece of the answer (`delta`), or its end (`finish`). */
export function chunkJson(
  head: ChatHead,
  delta: { role?: 'assistant'; content?: string },
  end?: { reply: RunReply },
) {
  return {
    id: idOf(head),
    object: 'chat.completion.chunk' as const,
    created: head.created,
    model: head.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: end ? ('stop' as const) : null }],
    ...(end ? { watchkeeper: about(head, end.reply) } : {}),
  };
}

/** The chunk after the last, as OpenAI sends it when asked (`stream_options.include_usage`). */
export function usageChunkJson(head: ChatHead, usage: ChatUsage | null) {
  return {
    id: idOf(head),
    object: 'chat.completion.chunk' as const,
    created: head.created,
    model: head.model,
    choices: [],
    usage,
  };
}
