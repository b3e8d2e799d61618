/**
 * The answers of the conversation memory and model gateway routes as zod schemas (see
 * openapi-schemas.ts): conversations, messages, summaries, extractions, scopes, gateway jobs.
 */
import { JOB_OUTCOMES, MEMORY_TYPES, MESSAGE_ROLES } from '../../db/index.js';
import { time, z } from './openapi-app.js';

const seqRange = { start_seq: z.number().int(), end_seq: z.number().int() };
const BACKENDS = ['cli', 'anthropic', 'openai', 'off'] as const;

export const MessageSchema = z
  .object({
    seq: z.number().int(),
    role: z.enum(MESSAGE_ROLES),
    content: z.string(),
    created_at: time,
  })
  .openapi('Message');

export const PostedMessageSchema = MessageSchema.extend({
  conversation_id: z.string(),
  scope: z.string(),
  duplicate: z.boolean(),
}).openapi('PostedMessage');

const conversation = {
  id: z.string(),
  scope: z.string(),
  created_at: time,
  updated_at: time,
  last_seq: z.number().int().openapi({ description: '-1 before the first message' }),
  message_count: z.number().int(),
  extracted_through_seq: z.number().int(),
  extracted_at: time,
};

export const ConversationListItemSchema = z
  .object({
    ...conversation,
    summaries: z.number().int(),
    processing: z.number().int(),
    failed: z.number().int(),
    latest_window: z
      .object({ start_seq: z.number().int(), end_seq: z.number().int().nullable() })
      .nullable(),
    memories: z.number().int(),
    shared_with_ops: z.boolean(),
  })
  .openapi('ConversationListItem');

export const SummarySchema = z
  .object({
    id: z.number().int(),
    conversation_id: z.string(),
    status: z.enum(['processing', 'completed', 'failed']),
    ...seqRange,
    window_size: z.number().int(),
    base_summary_id: z.number().int().nullable(),
    base_end_seq: z
      .number()
      .int()
      .nullable()
      .optional()
      .openapi({ description: 'in the history: where its base ended' }),
    text: z.string().nullable(),
    error: z.string().nullable(),
    job_id: z.number().int().nullable(),
    generation_time_ms: z.number().int().nullable(),
    created_at: time,
    finished_at: time,
  })
  .openapi('Summary');

export const ExtractionWindowSchema = z
  .object({
    id: z.number().int(),
    ...seqRange,
    tokens: z.number().int(),
    status: z.enum(['rejected', 'extracted', 'failed']),
    worth_remembering: z.boolean().nullable(),
    reason: z.string().nullable(),
    gate_job_id: z.number().int().nullable(),
    extract_job_id: z.number().int().nullable(),
    candidates: z.number().int(),
    created: z.number().int(),
    reinforced: z.number().int(),
    error: z.string().nullable(),
    created_at: time,
  })
  .openapi('ExtractionWindow');

export const ConversationMemorySchema = z
  .object({
    memory_id: z.number().int(),
    action: z.enum(['created', 'reinforced', 'superseded']),
    type: z.enum(MEMORY_TYPES),
    importance: z.number().int().min(1).max(5),
    tags: z.array(z.string()),
    window_id: z.number().int(),
    source_ref: z.string(),
    observation: z.string().nullable().openapi({ description: 'null once the memory is deleted' }),
    active: z.boolean().nullable(),
    created_at: time,
  })
  .openapi('ConversationMemory');

export const GateStatsSchema = z
  .object({
    windows: z.number().int(),
    worth: z.number().int(),
    productive: z.number().int().openapi({ description: 'yes-windows that yielded a memory' }),
    failed: z.number().int(),
    precision: z.number().nullable(),
  })
  .openapi('GateStats');

export const ConversationDetailSchema = z
  .object({
    ...conversation,
    shared_with_ops: z.boolean(),
    summaries: z.object({
      processing: z.number().int(),
      completed: z.number().int(),
      failed: z.number().int(),
    }),
    latest_summary: SummarySchema.nullable(),
    messages: z.array(MessageSchema).openapi({
      description:
        'a page of messages, oldest first: the newest `limit` before `cursor`, at most 4 MiB as JSON',
    }),
    next_cursor: z.string().nullable().openapi({
      description:
        'pass as `cursor` for the page of older messages; null when this page reaches the first',
    }),
    memories: z.array(ConversationMemorySchema),
    gate: GateStatsSchema,
  })
  .openapi('ConversationDetail');

export const ConversationContextSchema = z
  .object({
    conversation_id: z.string(),
    scope: z.string(),
    summary: z.string().nullable(),
    summary_id: z.number().int().nullable(),
    start_seq: z.number().int().nullable(),
    end_seq: z.number().int().nullable(),
    gap_messages: z.array(MessageSchema),
    omitted_messages: z.number().int().openapi({
      description:
        'messages after the summary left out (a context carries at most 100, and 4 MiB as JSON)',
    }),
    memories: z.array(
      z.object({
        id: z.number().int(),
        observation: z.string(),
        importance: z.string().openapi({ description: 'low, normal, high or core' }),
        scope: z.string(),
        source_ref: z.string().nullable(),
        score: z.number(),
      }),
    ),
    processing: z
      .object({ summary_id: z.number().int(), ...seqRange, created_at: time })
      .nullable()
      .openapi({ description: 'the summary being written now' }),
  })
  .openapi('ConversationContext');

export const SummariesSchema = z
  .object({
    conversation_id: z.string(),
    history: z.array(SummarySchema),
    stuck: z.array(SummarySchema),
    progression: z.array(SummarySchema),
    generation: z.object({
      avg_ms: z.number().int().nullable(),
      max_ms: z.number().int().nullable(),
      total_summaries: z.number().int(),
    }),
    stale_after_ms: z.number().int(),
  })
  .openapi('Summaries');

export const ScopeSchema = z
  .object({
    name: z.string(),
    shared_with_ops: z.boolean(),
    active_memories: z.number().int(),
    conversations: z.number().int(),
    updated_at: time,
  })
  .openapi('Scope');

export const GatewayJobSchema = z
  .object({
    id: z.number().int(),
    kind: z.string().openapi({ description: 'gate, extract, summary, ...' }),
    backend: z.string().openapi({ description: `the backend that ran it: ${BACKENDS.join(', ')}` }),
    model: z.string().nullable(),
    outcome: z.enum(JOB_OUTCOMES),
    ref: z.string().nullable(),
    input_tokens: z.number().int().nullable(),
    output_tokens: z.number().int().nullable(),
    cost_usd: z.number().nullable(),
    duration_ms: z.number().int().nullable(),
    attempts: z.number().int(),
    error: z.string().nullable(),
    created_at: time,
    finished_at: time,
  })
  .openapi('GatewayJob');

export const GatewayStateSchema = z
  .object({
    backend: z.string().openapi({ description: BACKENDS.join(', ') }),
    available: z.boolean(),
    off_reason: z.string().nullable(),
    models: z.record(z.string(), z.string()),
    daily_budget_usd: z.number(),
    spent_today_usd: z.number().openapi({ description: "this instance's jobs, today (UTC)" }),
    fleet_budget_usd: z
      .number()
      .nullable()
      .openapi({ description: 'the cap on every instance together (null: none)' }),
    fleet_spent_today_usd: z.number().nullable(),
    budget_reached: z.boolean(),
    running: z.number().int(),
    waiting: z.number().int(),
  })
  .openapi('GatewayState');

export const DayCostSchema = z.object({
  day: z.string().openapi({ format: 'date' }),
  jobs: z.number().int(),
  failed: z.number().int(),
  cost_usd: z.number(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
});
