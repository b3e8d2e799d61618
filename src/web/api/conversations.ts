/**
 * /api/v1/conversations: post a conversation's messages, read the context of the next round
 * (summary, gap messages, memories), list conversations, read one with its messages and
 * extracted memories, its summary history (seed 001's observability queries), and its
 * extraction windows (the gate's decisions).
 */
import type { OpenAPIHono } from '@hono/zod-openapi';

import {
  conversationListJson,
  conversationMemoryJson,
  extractionWindowJson,
  gateStatsJson,
  messageJson,
} from '../../db/index.js';
import { parseConversationId, parseMessageInput } from '../../conversations/index.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { conversationDetailJson } from './conversation-detail.js';
import { contextJson, summariesJson } from './conversations/answers.js';
import {
  getContext,
  getConversation,
  getExtractions,
  getSummaries,
} from './conversations/read-routes.js';
import { listConversations, postMessage } from './conversations/write-routes.js';
import { paging } from './json-body.js';
import { apiRouter } from './openapi-app.js';

export function conversationApi(deps: WebDeps): OpenAPIHono<AppEnv> {
  const app = apiRouter();
  const { stores } = deps;
  const conversations = deps.conversations;

  app.openapi(listConversations, async (c) => {
    const { limit, offset } = paging(c, 100);
    const [rows, total] = await Promise.all([
      stores.conversations.list({ limit, offset }),
      stores.conversations.count(),
    ]);
    return c.json(
      {
        conversations: rows.map(conversationListJson),
        total,
        limit,
        offset,
      },
      200,
    );
  });

  // 201 for a new message; 200 with `duplicate: true` when the client sent a seq it already
  // posted (a retry); 409 when that seq holds another message or would leave a gap.
  app.openapi(postMessage, async (c) => {
    const id = parseConversationId(c.req.valid('param').id);
    const input = parseMessageInput(c.req.valid('json'));
    const outcome = await conversations.post(id, input);
    if (outcome.kind === 'conflict' || outcome.kind === 'scope_mismatch') {
      const field = outcome.kind === 'conflict' ? 'seq' : 'scope';
      return c.json(
        {
          error: { code: 'conflict' as const, message: outcome.message, field },
          ...(outcome.kind === 'conflict' ? { expected_seq: outcome.expectedSeq } : {}),
        },
        409,
      );
    }
    const json = {
      conversation_id: id,
      scope: outcome.conversation.scope,
      ...messageJson(outcome.message),
      duplicate: outcome.kind === 'duplicate',
    };
    return outcome.kind === 'created' ? c.json(json, 201) : c.json(json, 200);
  });

  app.openapi(getContext, async (c) => {
    const id = parseConversationId(c.req.valid('param').id);
    const { query } = c.req.valid('query');
    const ctx = await conversations.context(id, query !== undefined ? { query } : {});
    return c.json(contextJson(ctx), 200);
  });

  app.openapi(getSummaries, async (c) => {
    const id = parseConversationId(c.req.valid('param').id);
    await conversations.get(id);
    return c.json(await summariesJson(deps, id), 200);
  });

  app.openapi(getExtractions, async (c) => {
    const id = parseConversationId(c.req.valid('param').id);
    await conversations.get(id);
    const [gate, windows, memories] = await Promise.all([
      stores.extractions.gateStats(id),
      stores.extractions.windows(id),
      stores.extractions.memories(id),
    ]);
    return c.json(
      {
        conversation_id: id,
        gate: gateStatsJson(gate),
        windows: windows.map(extractionWindowJson),
        memories: memories.map(conversationMemoryJson),
      },
      200,
    );
  });

  app.openapi(getConversation, async (c) => {
    const id = parseConversationId(c.req.valid('param').id);
    const { cursor } = c.req.valid('query');
    const { limit } = paging(c, 200, 10_000);
    return c.json(
      await conversationDetailJson(deps, await conversations.get(id), limit, cursor),
      200,
    );
  });

  return app;
}
