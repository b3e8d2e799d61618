/** The conversation id every route checks first, and its path parameter and errors. */
import type { MiddlewareHandler } from 'hono';

import { parseConversationId } from '../../../conversations/index.js';
import type { AppEnv } from '../../context.js';
import { err, z } from '../openapi-app.js';

// Every route checks its conversation id (conversations/input.ts) before anything else.
export const idFirst: MiddlewareHandler<AppEnv> = async (c, next) => {
  parseConversationId(c.req.param('id'));
  await next();
};

export const IdParams = z.object({
  id: z.string().openapi({
    description: '1 to 128 letters, digits, ".", "_", ":" and "-", starting with a letter or digit',
    example: 'chat-42',
  }),
});

export const conversationError = err('a bad id');
export const missing = err('no such conversation');
