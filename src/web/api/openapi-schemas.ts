/**
 * The answers of the ops routes (sessions, events, memories, services) as zod schemas: the
 * routes declare them, the OpenAPI document is generated from them, and the compiler checks the
 * JSON each handler builds (db/json.ts) against them.
 */
import {
  HISTORY_ACTIONS,
  IMPORTANCES,
  MEMORY_SOURCES,
  SESSION_STATUSES,
  SESSION_TRIGGERS,
} from '../../db/index.js';
import { CATEGORIES } from '../../memory/index.js';
import { time, z } from './openapi-app.js';
import { SessionRecordFields } from './session-record-schema.js';

export const CategorySchema = z.enum(CATEGORIES).openapi('Category');
export const ImportanceSchema = z.enum(IMPORTANCES).openapi('Importance');

export const MemorySchema = z
  .object({
    id: z.number().int(),
    service: z.string().nullable(),
    category: CategorySchema,
    observation: z.string(),
    confidence: z.number(),
    active: z.boolean(),
    pinned: z.boolean(),
    created_at: time,
    updated_at: time,
    last_reinforced_at: time,
    session_id: z.number().int().nullable(),
    tier: z.number().int().openapi({ description: '0 = operator' }),
    superseded_by: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'the memory that replaced this one' }),
    last_surfaced_at: time,
    surface_count: z.number().int(),
    importance: ImportanceSchema,
    importance_boost: z.number().openapi({
      description:
        'added by memory_reinforce (0.1 a call); promotion to core is suggested at 0.8 in all',
    }),
    source: z.enum(MEMORY_SOURCES),
    source_ref: z
      .string()
      .nullable()
      .openapi({ description: 'which marker, tool call or conversation range' }),
    scope: z.string().openapi({ description: '`ops`, or a conversation scope' }),
    archived_at: time,
    archive_reason: z.string().nullable(),
    access_count: z.number().int().openapi({ description: 'reads by memory_query' }),
    last_accessed_at: time,
    instance: z.string().openapi({
      description:
        'the instance that learned it, or `fleet` when shared with every instance (`local` for a lone sidecar)',
    }),
    shared: z.boolean().openapi({ description: 'true when `instance` is `fleet`' }),
  })
  .openapi('Memory');

/** A memory as created: how the new text was taken. */
export const MemoryCreatedSchema = MemorySchema.extend({
  action: z.enum(['created', 'superseded', 'reinforced']),
}).openapi('MemoryCreated');

export const SearchResultSchema = MemorySchema.extend({
  score: z.number(),
  why: z
    .object({
      lexical_rank: z.number().int().nullable(),
      bm25: z.number().nullable(),
      coverage: z.number().nullable(),
      semantic_rank: z.number().int().nullable(),
      cosine: z.number().nullable(),
      service_rank: z.number().int().nullable(),
      service_cosine: z.number().nullable(),
      fused: z.number(),
      relevance: z.number(),
      confidence_weight: z.number(),
      recency_weight: z.number(),
      importance_weight: z.number(),
    })
    .openapi({ description: 'every component of the score' }),
}).openapi('SearchResult');

export const MemoryHistorySchema = z
  .object({
    id: z.number().int(),
    memory_id: z.number().int(),
    action: z.enum(HISTORY_ACTIONS),
    old_confidence: z.number().nullable(),
    new_confidence: z.number().nullable(),
    observation: z.string().nullable(),
    session_id: z.number().int().nullable(),
    created_at: time,
    related_memory_id: z.number().int().nullable().openapi({
      description: 'the other memory of the change (the successor, for `superseded`)',
    }),
    source: z
      .enum(MEMORY_SOURCES)
      .nullable()
      .openapi({ description: 'what made the change, when recorded' }),
    evidence: z.string().nullable().openapi({
      description: 'evidence given with it (memory_reinforce), or the archive reason',
    }),
  })
  .openapi('MemoryHistory');

export const ServiceSchema = z
  .object({
    name: z.string(),
    description: z.string().nullable(),
    description_source: z.enum(['operator', 'agent', 'catalog']).nullable(),
    active_memories: z.number().int(),
    inactive_memories: z.number().int(),
    events: z.number().int(),
    last_event_at: time,
    cooldown_actions: z.number().int(),
    catalog: z
      .object({ name: z.string(), description: z.string() })
      .nullable()
      .openapi({ description: 'what the built-in catalog says, when it knows the service' }),
  })
  .openapi('Service');

export const SessionMemorySchema = z
  .object({
    memory_id: z.number().int(),
    via: z.enum(['context', 'hook']),
    score: z.number().nullable(),
    detail: z.unknown().openapi({
      description: '`reason` (pinned, relevant, confident) and `why` (the score components)',
    }),
    service: z.string().nullable(),
    category: z.string().nullable(),
    observation: z.string().nullable().openapi({ description: 'null once the memory is deleted' }),
    created_at: time,
  })
  .openapi('SessionMemory');

export const EventSchema = z
  .object({
    id: z.number().int(),
    session_id: z.number().int().nullable(),
    source: z.enum(['agent', 'system']),
    level: z.enum(['info', 'warning', 'critical']),
    service: z.string().nullable(),
    message: z.string(),
    created_at: time,
    instance: z
      .string()
      .openapi({ description: 'the sidecar that wrote it (WATCHKEEPER_INSTANCE)' }),
  })
  .openapi('Event');

export const SessionSchema = z
  .object({
    id: z.number().int(),
    status: z.enum(SESSION_STATUSES),
    trigger: z.enum(SESSION_TRIGGERS),
    tier: z.number().int(),
    model: z.string().nullable(),
    prompt: z.string().nullable(),
    parent_session_id: z.number().int().nullable(),
    cli_session_id: z.string().nullable(),
    started_at: time,
    ended_at: time,
    exit_code: z.number().int().nullable(),
    result_subtype: z.string().nullable(),
    is_error: z.boolean().nullable(),
    cost_usd: z.number().nullable(),
    num_turns: z.number().int().nullable(),
    duration_ms: z.number().int().nullable(),
    duration_api_ms: z.number().int().nullable(),
    usage: z.record(z.string(), z.unknown()).nullable(),
    response: z.string().nullable(),
    error: z.string().nullable(),
    log_path: z.string().nullable(),
    stream_stats: z.record(z.string(), z.unknown()).nullable(),
    simulated: z.boolean(),
    instance: z.string().openapi({ description: 'the sidecar that ran it (WATCHKEEPER_INSTANCE)' }),
  })
  .openapi('Session');

export const SessionDetailSchema = SessionSchema.extend({
  children: z.array(z.number().int()),
  events: z.array(EventSchema),
  chain_cost_usd: z.number().nullable(),
  alert_repeats: z.number().int().openapi({
    description:
      'how many more times the alert that started it came within the de-duplication window',
  }),
  ...SessionRecordFields,
}).openapi('SessionDetail');

export const RunRequestSchema = z
  .object({
    request_id: z.string(),
    state: z.enum(['queued', 'running', 'done', 'failed', 'cancelled']),
    session_ids: z.array(z.number().int()),
    error: z.string().nullable().optional(),
  })
  .openapi('RunRequest');
