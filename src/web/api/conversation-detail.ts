/**
 * GET /api/v1/conversations/{id}: one conversation with a page of its messages. The page is
 * bounded by count (`limit`) and by bytes (MAX_PAGE_BYTES), whatever the conversation's size;
 * `next_cursor` reads on into the older messages.
 */
import {
  conversationJson,
  conversationMemoryJson,
  type ConversationRow,
  gateStatsJson,
  messageJson,
  summaryJson,
} from '../../db/index.js';
import { parseCursor, readMessagePage } from '../../conversations/index.js';
import type { MiddlewareHandler } from 'hono';

import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { common, createRoute, err, ok, pagingQuery, z } from './openapi-app.js';
import { ConversationDetailSchema } from './openapi-schemas-conversations.js';

export function getConversationRoute(
  idFirst: MiddlewareHandler<AppEnv>,
  IdParams: z.ZodObject<{ id: z.ZodString }>,
) {
  return createRoute({
    method: 'get',
    path: '/{id}',
    summary:
      'One conversation: a page of its newest messages (`limit`, default 200; at most 4 MiB of them as JSON, `next_cursor` for the older ones), summary counts, latest summary, extracted memories and the gate record',
    middleware: [idFirst] as const,
    request: {
      params: IdParams,
      query: z.object({
        limit: pagingQuery(10_000).limit,
        cursor: z.string().optional().openapi({
          description: 'the `next_cursor` of the page before: read the messages older than it',
          example: '4800',
        }),
      }),
    },
    responses: {
      200: ok('the conversation', ConversationDetailSchema),
      400: err('a bad id, limit or cursor, named'),
      404: err('no such conversation'),
      ...common,
    },
  });
}

export async function conversationDetailJson(
  deps: Pick<WebDeps, 'stores'>,
  conv: ConversationRow,
  limit: number,
  cursor: string | undefined,
) {
  const { stores } = deps;
  const before = cursor === undefined ? conv.lastSeq + 1 : parseCursor(cursor);
  const [page, latest, shared, summaries, memories, gate] = await Promise.all([
    readMessagePage(stores.conversations, conv.id, { limit, before }),
    stores.summaries.latestCompleted(conv.id),
    stores.scopes.isShared(conv.scope),
    stores.summaries.countByStatus(conv.id),
    stores.extractions.memories(conv.id),
    stores.extractions.gateStats(conv.id),
  ]);
  return {
    ...conversationJson(conv),
    shared_with_ops: shared,
    summaries,
    latest_summary: latest && summaryJson(latest),
    messages: page.messages.map(messageJson),
    next_cursor: page.nextCursor,
    memories: memories.map(conversationMemoryJson),
    gate: gateStatsJson(gate),
  };
}
