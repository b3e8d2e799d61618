/**
 * The conversation memory and model gateway part of the OpenAPI document (openapi.ts spreads
 * these in): conversations, their messages, context, summaries and extractions, memory scopes,
 * gateway jobs.
 */
import { JOB_OUTCOMES, MEMORY_TYPES, MESSAGE_ROLES } from '../../db/index.js';
import {
  array,
  common,
  err,
  json,
  nullable,
  ok,
  paging,
  ref,
  time,
  withBody,
} from './openapi-parts.js';

const conversationId = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$' },
};
const seqRange = {
  start_seq: { type: 'integer' },
  end_seq: { type: 'integer' },
};

export const CONVERSATION_PATHS = {
  '/conversations': {
    get: {
      summary: 'Conversations, most recently active first',
      parameters: paging,
      responses: {
        '200': ok('conversations', {
          type: 'object',
          properties: {
            conversations: array('ConversationListItem'),
            total: { type: 'integer' },
          },
        }),
        ...common,
      },
    },
  },
  '/conversations/{id}': {
    get: {
      summary:
        'One conversation: its newest messages (`limit`, default 200), summary counts, latest summary, extracted memories and the gate record',
      parameters: [conversationId, paging[0]],
      responses: {
        '200': ok('the conversation', ref('ConversationDetail')),
        '400': err('a bad id'),
        '404': err('no such conversation'),
        ...common,
      },
    },
  },
  '/conversations/{id}/messages': {
    post: {
      summary:
        'Post the next message of a conversation (created with it). With `seq`, posting is idempotent: the same message at the same seq answers 200 with `duplicate: true`',
      parameters: [conversationId],
      requestBody: json({
        type: 'object',
        required: ['role', 'content'],
        additionalProperties: false,
        properties: {
          role: { enum: [...MESSAGE_ROLES] },
          content: { type: 'string', minLength: 1, maxLength: 100_000 },
          seq: { type: 'integer', minimum: 0, description: 'the next seq; omit to append' },
          scope: {
            type: 'string',
            description: 'memory scope of a new conversation (default: conversation:ID)',
          },
        },
      }),
      responses: {
        '201': ok('stored', ref('PostedMessage')),
        '200': ok('already stored at this seq (a retry)', ref('PostedMessage')),
        '400': err('a bad field, named (role, content over 100,000 characters, seq, scope)'),
        '409': err(
          'the seq holds another message or would leave a gap (`expected_seq`), or the conversation has another scope',
        ),
        ...withBody,
      },
    },
  },
  '/conversations/{id}/context': {
    get: {
      summary:
        'What the next round needs: the latest completed summary, the messages after it (all messages while none is ready), and the relevant memories of its scope and the shared scopes (at most 500 tokens)',
      parameters: [
        conversationId,
        {
          name: 'query',
          in: 'query',
          schema: { type: 'string', maxLength: 10000 },
          description: 'what to find memories for (default: the newest user message)',
        },
      ],
      responses: {
        '200': ok('the context', ref('ConversationContext')),
        '404': err('no such conversation'),
        ...common,
      },
    },
  },
  '/conversations/{id}/summaries': {
    get: {
      summary:
        "Seed 001's observability queries: the summary history with its version chain, stuck processing rows, window progression, generation time",
      parameters: [conversationId],
      responses: {
        '200': ok('summaries', {
          type: 'object',
          properties: {
            history: array('Summary'),
            stuck: array('Summary'),
            progression: array('Summary'),
            generation: {
              type: 'object',
              properties: {
                avg_ms: nullable('integer'),
                max_ms: nullable('integer'),
                total_summaries: { type: 'integer' },
              },
            },
            stale_after_ms: { type: 'integer' },
          },
        }),
        '404': err('no such conversation'),
        ...common,
      },
    },
  },
  '/conversations/{id}/extractions': {
    get: {
      summary: "The extraction windows with the gate's decisions, and the memories they yielded",
      parameters: [conversationId],
      responses: {
        '200': ok('extractions', {
          type: 'object',
          properties: {
            gate: ref('GateStats'),
            windows: array('ExtractionWindow'),
            memories: array('ConversationMemory'),
          },
        }),
        '404': err('no such conversation'),
        ...common,
      },
    },
  },
  '/scopes': {
    get: {
      summary: 'Memory scopes and whether each is shared with the ops sessions',
      responses: {
        '200': ok('scopes', { type: 'object', properties: { scopes: array('Scope') } }),
        ...common,
      },
    },
  },
  '/scopes/{name}': {
    put: {
      summary:
        'Share a scope with the ops sessions (their memory block includes its memories), or stop',
      parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
      requestBody: json({
        type: 'object',
        required: ['shared_with_ops'],
        properties: { shared_with_ops: { type: 'boolean' } },
      }),
      responses: {
        '200': ok('the scope', ref('Scope')),
        '400': err('a bad name (or `ops`) or a missing shared_with_ops'),
        ...withBody,
      },
    },
  },
  '/gateway/jobs': {
    get: {
      summary: "The model gateway's jobs, newest first, with its state and the cost per UTC day",
      parameters: [
        ...paging,
        { name: 'kind', in: 'query', schema: { type: 'string' } },
        { name: 'outcome', in: 'query', schema: { enum: [...JOB_OUTCOMES] } },
      ],
      responses: {
        '200': ok('jobs', {
          type: 'object',
          properties: {
            jobs: array('GatewayJob'),
            total: { type: 'integer' },
            state: ref('GatewayState'),
            per_day: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  day: { type: 'string', format: 'date' },
                  jobs: { type: 'integer' },
                  failed: { type: 'integer' },
                  cost_usd: { type: 'number' },
                  input_tokens: { type: 'integer' },
                  output_tokens: { type: 'integer' },
                },
              },
            },
          },
        }),
        '400': err('a bad filter'),
        ...common,
      },
    },
  },
};

const message = {
  type: 'object',
  properties: {
    seq: { type: 'integer' },
    role: { enum: [...MESSAGE_ROLES] },
    content: { type: 'string' },
    created_at: time,
  },
};
const conversation = {
  id: { type: 'string' },
  scope: { type: 'string' },
  created_at: time,
  updated_at: time,
  last_seq: { type: 'integer', description: '-1 before the first message' },
  message_count: { type: 'integer' },
  extracted_through_seq: { type: 'integer' },
  extracted_at: time,
};

export const CONVERSATION_SCHEMAS = {
  Message: message,
  PostedMessage: {
    type: 'object',
    properties: {
      conversation_id: { type: 'string' },
      scope: { type: 'string' },
      ...message.properties,
      duplicate: { type: 'boolean' },
    },
  },
  ConversationListItem: {
    type: 'object',
    properties: {
      ...conversation,
      summaries: { type: 'integer' },
      processing: { type: 'integer' },
      failed: { type: 'integer' },
      latest_window: { type: ['object', 'null'], properties: seqRange },
      memories: { type: 'integer' },
      shared_with_ops: { type: 'boolean' },
    },
  },
  ConversationDetail: {
    type: 'object',
    properties: {
      ...conversation,
      shared_with_ops: { type: 'boolean' },
      summaries: {
        type: 'object',
        properties: {
          processing: { type: 'integer' },
          completed: { type: 'integer' },
          failed: { type: 'integer' },
        },
      },
      latest_summary: { oneOf: [ref('Summary'), { type: 'null' }] },
      messages: array('Message'),
      memories: array('ConversationMemory'),
      gate: ref('GateStats'),
    },
  },
  ConversationContext: {
    type: 'object',
    properties: {
      conversation_id: { type: 'string' },
      scope: { type: 'string' },
      summary: nullable('string'),
      summary_id: nullable('integer'),
      start_seq: nullable('integer'),
      end_seq: nullable('integer'),
      gap_messages: array('Message'),
      omitted_messages: {
        type: 'integer',
        description: 'messages after the summary left out (a context carries at most 100)',
      },
      memories: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'integer' },
            observation: { type: 'string' },
            importance: ref('Importance'),
            scope: { type: 'string' },
            source_ref: nullable('string'),
            score: { type: 'number' },
          },
        },
      },
      processing: {
        type: ['object', 'null'],
        description: 'the summary being written now',
        properties: { summary_id: { type: 'integer' }, ...seqRange, created_at: time },
      },
    },
  },
  Summary: {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      conversation_id: { type: 'string' },
      status: { enum: ['processing', 'completed', 'failed'] },
      ...seqRange,
      window_size: { type: 'integer' },
      base_summary_id: nullable('integer'),
      base_end_seq: { ...nullable('integer'), description: 'in the history: where its base ended' },
      text: nullable('string'),
      error: nullable('string'),
      job_id: nullable('integer'),
      generation_time_ms: nullable('integer'),
      created_at: time,
      finished_at: time,
    },
  },
  ExtractionWindow: {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      ...seqRange,
      tokens: { type: 'integer' },
      status: { enum: ['rejected', 'extracted', 'failed'] },
      worth_remembering: nullable('boolean'),
      reason: nullable('string'),
      gate_job_id: nullable('integer'),
      extract_job_id: nullable('integer'),
      candidates: { type: 'integer' },
      created: { type: 'integer' },
      reinforced: { type: 'integer' },
      error: nullable('string'),
      created_at: time,
    },
  },
  ConversationMemory: {
    type: 'object',
    properties: {
      memory_id: { type: 'integer' },
      action: { enum: ['created', 'reinforced', 'superseded'] },
      type: { enum: [...MEMORY_TYPES] },
      importance: { type: 'integer', minimum: 1, maximum: 5 },
      tags: { type: 'array', items: { type: 'string' } },
      window_id: { type: 'integer' },
      source_ref: { type: 'string' },
      observation: { ...nullable('string'), description: 'null once the memory is deleted' },
      active: nullable('boolean'),
      created_at: time,
    },
  },
  GateStats: {
    type: 'object',
    properties: {
      windows: { type: 'integer' },
      worth: { type: 'integer' },
      productive: { type: 'integer', description: 'yes-windows that yielded a memory' },
      failed: { type: 'integer' },
      precision: nullable('number'),
    },
  },
  Scope: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      shared_with_ops: { type: 'boolean' },
      active_memories: { type: 'integer' },
      conversations: { type: 'integer' },
      updated_at: time,
    },
  },
  GatewayJob: {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      kind: { type: 'string', description: 'gate, extract, summary, ...' },
      backend: { enum: ['cli', 'anthropic', 'openai', 'off'] },
      model: nullable('string'),
      outcome: { enum: [...JOB_OUTCOMES] },
      ref: nullable('string'),
      input_tokens: nullable('integer'),
      output_tokens: nullable('integer'),
      cost_usd: nullable('number'),
      duration_ms: nullable('integer'),
      attempts: { type: 'integer' },
      error: nullable('string'),
      created_at: time,
      finished_at: time,
    },
  },
  GatewayState: {
    type: 'object',
    properties: {
      backend: { enum: ['cli', 'anthropic', 'openai', 'off'] },
      available: { type: 'boolean' },
      off_reason: nullable('string'),
      models: { type: 'object', additionalProperties: { type: 'string' } },
      daily_budget_usd: { type: 'number' },
      spent_today_usd: { type: 'number' },
      budget_reached: { type: 'boolean' },
      running: { type: 'integer' },
      waiting: { type: 'integer' },
    },
  },
};
