/**
 * /api/v1/conversations: post a conversation's messages, read the context of the next round
 * (summary, gap messages, memories), list conversations, read one with its messages and
 * extracted memories, its summary history (seed 001's observability queries), and its
 * extraction windows (the gate's decisions).
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';

import {
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
  MAX_CONTENT_CHARS,
  parseConversationId,
  parseMessageInput,
} from '../../conversations/index.js';
import { MESSAGE_ROLES } from '../../db/index.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { conversationDetailJson, getConversationRoute } from './conversation-detail.js';
import { paging } from './json-body.js';
import {
  apiRouter,
  common,
  createRoute,
  err,
  jsonObjectBody,
  jsonRequest,
  ok,
  pagingQuery,
  withBody,
  z,
} from './openapi-app.js';
import {
  ConversationContextSchema,
  ConversationListItemSchema,
  ConversationMemorySchema,
  ExtractionWindowSchema,
  GateStatsSchema,
  PostedMessageSchema,
  SummariesSchema,
} from './openapi-schemas-conversations.js';

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

// Every route checks its conversation id (conversations/input.ts) before anything else.
const idFirst: MiddlewareHandler<AppEnv> = async (c, next) => {
  parseConversationId(c.req.param('id'));
  await next();
};

const IdParams = z.object({
  id: z.string().openapi({
    description: '1 to 128 letters, digits, ".", "_", ":" and "-", starting with a letter or digit',
    example: 'chat-42',
  }),
});

const conversationError = err('a bad id');
const missing = err('no such conversation');

const listConversations = createRoute({
  method: 'get',
  path: '/',
  summary: 'Conversations, most recently active first',
  request: { query: z.object(pagingQuery()) },
  responses: {
    200: ok(
      'conversations',
      z.object({
        conversations: z.array(ConversationListItemSchema),
        total: z.number().int(),
        limit: z.number().int(),
        offset: z.number().int(),
      }),
    ),
    400: err('a bad limit or offset, named'),
    ...common,
  },
});

const MessageBody = z.strictObject(
  {
    role: z.enum(MESSAGE_ROLES, { error: `must be one of ${MESSAGE_ROLES.join(', ')}` }),
    content: z.string({ error: 'must be a string' }).openapi({
      minLength: 1,
      maxLength: MAX_CONTENT_CHARS,
      description: 'not blank; CRLF counts as one line break',
    }),
    seq: z
      .number({ error: 'must be a whole number from 0 to 1000000000' })
      .int({ error: 'must be a whole number from 0 to 1000000000' })
      .min(0, { error: 'must be a whole number from 0 to 1000000000' })
      .max(1_000_000_000, { error: 'must be a whole number from 0 to 1000000000' })
      .optional()
      .openapi({ description: 'the next seq; omit to append' }),
    scope: z
      .string()
      .optional()
      .openapi({ description: 'memory scope of a new conversation (default: conversation:ID)' }),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? 'unknown field; a message has role, content, seq, scope'
        : undefined,
  },
);

const postMessage = createRoute({
  method: 'post',
  path: '/{id}/messages',
  summary:
    'Post the next message of a conversation (created with it). With `seq`, posting is idempotent: the same message at the same seq answers 200 with `duplicate: true`',
  middleware: [idFirst, jsonObjectBody] as const,
  request: { params: IdParams, body: jsonRequest(MessageBody) },
  responses: {
    201: ok('stored', PostedMessageSchema),
    200: ok('already stored at this seq (a retry)', PostedMessageSchema),
    409: ok(
      'the seq holds another message or would leave a gap (`expected_seq`), or the conversation has another scope',
      z.object({
        error: z.object({ code: z.literal('conflict'), message: z.string(), field: z.string() }),
        expected_seq: z.number().int().optional(),
      }),
    ),
    ...withBody,
    400: err('a bad id, or a bad field, named (role, content over 100,000 characters, seq, scope)'),
  },
});

const getContext = createRoute({
  method: 'get',
  path: '/{id}/context',
  summary:
    'What the next round needs: the latest completed summary, the messages after it (all messages while none is ready), and the relevant memories of its scope and the shared scopes (at most 500 tokens)',
  middleware: [idFirst] as const,
  request: {
    params: IdParams,
    query: z.object({
      query: z
        .string()
        .max(10_000, { error: 'query: at most 10000 characters' })
        .optional()
        .openapi({ description: 'what to find memories for (default: the newest user message)' }),
    }),
  },
  responses: {
    200: ok('the context', ConversationContextSchema),
    400: conversationError,
    404: missing,
    ...common,
  },
});

const getSummaries = createRoute({
  method: 'get',
  path: '/{id}/summaries',
  summary:
    "Seed 001's observability queries: the summary history with its version chain, stuck processing rows, window progression, generation time",
  middleware: [idFirst] as const,
  request: { params: IdParams },
  responses: {
    200: ok('summaries', SummariesSchema),
    400: conversationError,
    404: missing,
    ...common,
  },
});

const getExtractions = createRoute({
  method: 'get',
  path: '/{id}/extractions',
  summary: "The extraction windows with the gate's decisions, and the memories they yielded",
  middleware: [idFirst] as const,
  request: { params: IdParams },
  responses: {
    200: ok(
      'extractions',
      z.object({
        conversation_id: z.string(),
        gate: GateStatsSchema,
        windows: z.array(ExtractionWindowSchema),
        memories: z.array(ConversationMemorySchema),
      }),
    ),
    400: conversationError,
    404: missing,
    ...common,
  },
});

const getConversation = getConversationRoute(idFirst, IdParams);

export function conversationApi(deps: WebDeps): OpenAPIHono<AppEnv> {
  const app = apiRouter();
  const { stores } = deps;
  const conversations = deps.conversations;

  app.openapi(listConversations, (c) => {
    const { limit, offset } = paging(c, 100);
    return c.json(
      {
        conversations: stores.conversations.list({ limit, offset }).map(conversationListJson),
        total: stores.conversations.count(),
        limit,
        offset,
      },
      200,
    );
  });

  // 201 for a new message; 200 with `duplicate: true` when the client sent a seq it already
  // posted (a retry); 409 when that seq holds another message or would leave a gap.
  app.openapi(postMessage, (c) => {
    const id = parseConversationId(c.req.valid('param').id);
    const input = parseMessageInput(c.req.valid('json'));
    const outcome = conversations.post(id, input);
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

  app.openapi(getSummaries, (c) => {
    const id = parseConversationId(c.req.valid('param').id);
    conversations.get(id);
    return c.json(summariesJson(deps, id), 200);
  });

  app.openapi(getExtractions, (c) => {
    const id = parseConversationId(c.req.valid('param').id);
    conversations.get(id);
    return c.json(
      {
        conversation_id: id,
        gate: gateStatsJson(stores.extractions.gateStats(id)),
        windows: stores.extractions.windows(id).map(extractionWindowJson),
        memories: stores.extractions.memories(id).map(conversationMemoryJson),
      },
      200,
    );
  });

  app.openapi(getConversation, (c) => {
    const id = parseConversationId(c.req.valid('param').id);
    const { cursor } = c.req.valid('query');
    const { limit } = paging(c, 200, 10_000);
    return c.json(conversationDetailJson(deps, conversations.get(id), limit, cursor), 200);
  });

  return app;
}
