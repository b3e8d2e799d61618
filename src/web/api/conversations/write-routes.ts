/** The routes that list conversations and post their messages. */
import { MAX_CONTENT_CHARS } from '../../../conversations/index.js';
import { MESSAGE_ROLES } from '../../../db/index.js';
import {
  common,
  createRoute,
  err,
  jsonObjectBody,
  jsonRequest,
  ok,
  pagingQuery,
  withBody,
  z,
} from '../openapi-app.js';
import {
  ConversationListItemSchema,
  PostedMessageSchema,
} from '../openapi-schemas-conversations.js';
import { IdParams, idFirst } from './id.js';

export const listConversations = createRoute({
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

export const postMessage = createRoute({
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
      'the seq holds another message or would leave a gap (`expected_seq`), or the conversation has another scope; or (`busy`) other writers kept taking its next number: send it again',
      z.object({
        error: z.object({
          code: z.enum(['conflict', 'busy']),
          message: z.string(),
          field: z.string().optional(),
        }),
        expected_seq: z.number().int().optional(),
      }),
    ),
    ...withBody,
    400: err('a bad id, or a bad field, named (role, content over 100,000 characters, seq, scope)'),
  },
});
