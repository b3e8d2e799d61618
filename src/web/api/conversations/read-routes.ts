/** The routes that read one conversation: its context, summaries, extractions and messages. */
import { getConversationRoute } from '../conversation-detail.js';
import { common, createRoute, ok, z } from '../openapi-app.js';
import {
  ConversationContextSchema,
  ConversationMemorySchema,
  ExtractionWindowSchema,
  GateStatsSchema,
  SummariesSchema,
} from '../openapi-schemas-conversations.js';
import { conversationError, IdParams, idFirst, missing } from './id.js';

export const getContext = createRoute({
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

export const getSummaries = createRoute({
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

export const getExtractions = createRoute({
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

export const getConversation = getConversationRoute(idFirst, IdParams);
