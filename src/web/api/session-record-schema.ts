/**
 * The session record's fields in GET /api/v1/sessions/{id} (session-record.ts builds them): the
 * chain's summary, the exact appended system prompt, token counts (the session's and the
 * chain's) and the services it checked.
 */
import { HEALTH_STATES } from '../../db/index.js';
import { time, z } from './openapi-app.js';

const Tokens = z
  .object({
    input: z.number().int(),
    output: z.number().int(),
    cache_read: z.number().int(),
    cache_write: z.number().int(),
  })
  .nullable();

export const SessionRecordFields = {
  summary: z
    .object({
      text: z.string().nullable(),
      source: z.enum(['model', 'final_response']).nullable(),
      status: z.enum(['pending', 'done', 'failed']),
      error: z.string().nullable(),
      job_id: z.number().int().nullable(),
      session_id: z.number().int().openapi({ description: "the chain's first session" }),
      written_at: time,
    })
    .nullable()
    .openapi({ description: "the chain's summary (2-5 sentences), kept on its first session" }),
  system_prompt: z
    .string()
    .nullable()
    .openapi({ description: 'the exact text appended to the CLI system prompt' }),
  tokens: Tokens,
  chain_tokens: Tokens,
  services_checked: z.array(
    z.object({
      service: z.string(),
      health: z.enum(HEALTH_STATES),
      detail: z.string().nullable(),
      source: z.enum(['marker', 'response']),
    }),
  ),
};
