/**
 * Conversation memory (src/conversations): seed 001's sliding window and summaries, and seed
 * 000's extraction of memories from the messages.
 */
import { z } from 'zod';

import { SCOPE_NAME } from '../text-rules.js';
import { duration, int } from './parse.js';

/** A memory scope name: letters, digits and . _ : -, not `ops` (share a scope with ops instead). */
const scopeName = z
  .string()
  .trim()
  .regex(SCOPE_NAME, {
    message: 'expected a name of letters, digits, ".", "_", ":" and "-" (at most 100)',
  })
  .refine((s) => s !== 'ops', {
    message: '"ops" is the scheduled sessions\' own scope; share a scope with ops instead',
  });

export const conversationsShape = {
  CONVERSATION_SCOPE: scopeName.optional(),
  CONVERSATION_WINDOW: int(2, 1000).default(14),
  CONVERSATION_SUMMARIZE_AFTER: int(1, 100_000).default(5),
  CONVERSATION_STALE: duration(1000).default(5 * 60_000),
  EXTRACT_EVERY: int(1, 100_000).default(10),
  EXTRACT_INTERVAL: duration(1000).default(60_000),
};

/** Conversation memory (src/conversations): seed 001's window and seed 000's extraction. */
export interface ConversationsConfig {
  /** One scope for every conversation; null: each conversation its own (`conversation:ID`). */
  scope: string | null;
  windowSize: number;
  summarizeAfterSeq: number;
  /** A summary still processing after this long is marked failed. */
  staleAfterMs: number;
  extractEveryMessages: number;
  extractIntervalMs: number;
}

export function conversationsConfig(
  c: z.infer<z.ZodObject<typeof conversationsShape>>,
): ConversationsConfig {
  return {
    scope: c.CONVERSATION_SCOPE ?? null,
    windowSize: c.CONVERSATION_WINDOW,
    summarizeAfterSeq: c.CONVERSATION_SUMMARIZE_AFTER,
    staleAfterMs: c.CONVERSATION_STALE,
    extractEveryMessages: c.EXTRACT_EVERY,
    extractIntervalMs: c.EXTRACT_INTERVAL,
  };
}
