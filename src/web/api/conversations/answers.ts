/** The JSON of a conversation's context (what the next round needs) and of its summaries. */
import { generationJson, isoTime, messageJson, summaryJson } from '../../../db/index.js';
import type { ConversationContext } from '../../../conversations/index.js';
import type { WebDeps } from '../../deps.js';

/** The context answer: seed 001's summary and gap, and the relevant memories. */
export function contextJson(ctx: ConversationContext) {
  return {
    conversation_id: ctx.conversation.id,
    scope: ctx.conversation.scope,
    summary: ctx.summary?.text ?? null,
    summary_id: ctx.summary?.id ?? null,
    start_seq: ctx.summary?.startSeq ?? null,
    end_seq: ctx.summary?.endSeq ?? null,
    gap_messages: ctx.gapMessages.map(messageJson),
    omitted_messages: ctx.omittedMessages,
    memories: ctx.memories.map((m) => ({
      id: m.id,
      observation: m.observation,
      importance: m.importance,
      scope: m.scope,
      source_ref: m.sourceRef,
      score: m.score,
    })),
    processing: ctx.processing && {
      summary_id: ctx.processing.id,
      start_seq: ctx.processing.startSeq,
      end_seq: ctx.processing.endSeq,
      created_at: isoTime(ctx.processing.createdAt),
    },
  };
}

/** Seed 001's observability queries for one conversation. */
export async function summariesJson(deps: WebDeps, id: string) {
  const { summaries } = deps.stores;
  const staleAfterMs = deps.conversations.options.staleAfterMs;
  const stuckBefore = deps.clock.now() - staleAfterMs;
  const [history, stuck, progression, generation] = await Promise.all([
    summaries.history(id),
    summaries.stuck(stuckBefore, id),
    summaries.progression(20, id),
    summaries.generationStats(id),
  ]);
  return {
    conversation_id: id,
    history: history.map(summaryJson),
    stuck: stuck.map(summaryJson),
    progression: progression.map(summaryJson),
    generation: generationJson(generation),
    stale_after_ms: staleAfterMs,
  };
}
