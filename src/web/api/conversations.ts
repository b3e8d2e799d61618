/**
 * /api/v1/conversations: post a conversation's messages, read the context of the next round
 * (summary, gap messages, memories), list conversations, read one with its messages and
 * extracted memories, its summary history (seed 001's observability queries), and its
 * extraction windows (the gate's decisions).
 */
import { Hono } from 'hono';

import {
  conversationJson,
  conversationListJson,
  conversationMemoryJson,
  extractionWindowJson,
  gateStatsJson,
  generationJson,
  isoTime,
  messageJson,
  summaryJson,
} from '../../db/index.js';
import {
  type ConversationContext,
  parseConversationId,
  parseMessageInput,
} from '../../conversations/index.js';
import { AppError } from '../../errors.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { jsonBody, paging } from './json-body.js';

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
export function summariesJson(deps: WebDeps, id: string) {
  const { summaries } = deps.stores;
  const staleAfterMs = deps.conversations.options.staleAfterMs;
  const stuckBefore = deps.clock.now() - staleAfterMs;
  return {
    conversation_id: id,
    history: summaries.history(id).map(summaryJson),
    stuck: summaries.stuck(stuckBefore, id).map(summaryJson),
    progression: summaries.progression(20, id).map(summaryJson),
    generation: generationJson(summaries.generationStats(id)),
    stale_after_ms: staleAfterMs,
  };
}

export function conversationApi(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { stores } = deps;
  const conversations = deps.conversations;

  app.get('/', (c) => {
    const { limit, offset } = paging(c, 100);
    return c.json({
      conversations: stores.conversations.list({ limit, offset }).map(conversationListJson),
      total: stores.conversations.count(),
      limit,
      offset,
    });
  });

  // 201 for a new message; 200 with `duplicate: true` when the client sent a seq it already
  // posted (a retry); 409 when that seq holds another message or would leave a gap.
  app.post('/:id/messages', async (c) => {
    const id = parseConversationId(c.req.param('id'));
    const input = parseMessageInput(await jsonBody(c));
    const outcome = conversations.post(id, input);
    if (outcome.kind === 'conflict' || outcome.kind === 'scope_mismatch') {
      const field = outcome.kind === 'conflict' ? 'seq' : 'scope';
      return c.json(
        {
          error: { code: 'conflict', message: outcome.message, field },
          ...(outcome.kind === 'conflict' ? { expected_seq: outcome.expectedSeq } : {}),
        },
        409,
      );
    }
    return c.json(
      {
        conversation_id: id,
        scope: outcome.conversation.scope,
        ...messageJson(outcome.message),
        duplicate: outcome.kind === 'duplicate',
      },
      outcome.kind === 'created' ? 201 : 200,
    );
  });

  app.get('/:id/context', async (c) => {
    const id = parseConversationId(c.req.param('id'));
    const query = c.req.query('query');
    if (query !== undefined && query.length > 10_000) {
      throw new AppError('usage', 'query: at most 10000 characters', { data: { field: 'query' } });
    }
    const ctx = await conversations.context(id, query !== undefined ? { query } : {});
    return c.json(contextJson(ctx));
  });

  app.get('/:id/summaries', (c) => {
    const id = parseConversationId(c.req.param('id'));
    conversations.get(id);
    return c.json(summariesJson(deps, id));
  });

  app.get('/:id/extractions', (c) => {
    const id = parseConversationId(c.req.param('id'));
    conversations.get(id);
    return c.json({
      conversation_id: id,
      gate: gateStatsJson(stores.extractions.gateStats(id)),
      windows: stores.extractions.windows(id).map(extractionWindowJson),
      memories: stores.extractions.memories(id).map(conversationMemoryJson),
    });
  });

  app.get('/:id', (c) => {
    const id = parseConversationId(c.req.param('id'));
    const conv = conversations.get(id);
    const { limit } = paging(c, 200, 10_000);
    const latest = stores.summaries.latestCompleted(id);
    return c.json({
      ...conversationJson(conv),
      shared_with_ops: stores.scopes.isShared(conv.scope),
      summaries: stores.summaries.countByStatus(id),
      latest_summary: latest && summaryJson(latest),
      messages: stores.conversations.latestMessages(id, limit).map(messageJson),
      memories: stores.extractions.memories(id).map(conversationMemoryJson),
      gate: gateStatsJson(stores.extractions.gateStats(id)),
    });
  });

  return app;
}
