/**
 * The OpenAPI document of /api/v1, served at /api/v1/openapi.json. test/web/openapi.test.ts
 * checks it against the routes the app really defines, both ways.
 */
import { SESSION_STATUSES } from '../../db/index.js';
import { CONVERSATION_PATHS, CONVERSATION_SCHEMAS } from './openapi-conversations.js';
import { GRAPH_PATHS } from './openapi-graph.js';
import { common, err, json, nullable, ok, paging, ref, time, withBody } from './openapi-parts.js';

const nameParam = {
  name: 'name',
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$' },
};
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };

export const OPENAPI = {
  openapi: '3.1.0',
  info: {
    title: 'watchkeeper API',
    version: '1',
    description:
      'Sessions, events, memories, services and cooldowns of a watchkeeper sidecar. Authenticate with ' +
      '`Authorization: Bearer TOKEN` (WATCHKEEPER_AUTH_TOKEN). Times are ISO 8601 strings in UTC; ' +
      'errors are `{"error": {"code", "message"}}`.',
  },
  servers: [{ url: '/api/v1' }],
  security: [{ bearer: [] }],
  paths: {
    '/health': {
      get: {
        summary: 'Liveness',
        security: [],
        responses: { '200': ok('up', { type: 'object', properties: { status: { const: 'ok' } } }) },
      },
    },
    '/openapi.json': {
      get: {
        summary: 'This document',
        security: [],
        responses: { '200': ok('the document', { type: 'object' }) },
      },
    },
    '/stats': {
      get: {
        summary: 'The overview numbers',
        responses: { '200': ok('stats', { type: 'object' }), ...common },
      },
    },
    '/sessions': {
      get: {
        summary: 'Sessions, newest first',
        parameters: paging,
        responses: {
          '200': ok('sessions', {
            type: 'object',
            properties: { sessions: { type: 'array', items: ref('Session') } },
          }),
          ...common,
        },
      },
      post: {
        summary: 'Queue a run (a chain starting at `tier`)',
        requestBody: json({
          type: 'object',
          properties: {
            prompt: { type: 'string', maxLength: 20000 },
            tier: { type: 'integer', minimum: 1, maximum: 3 },
          },
        }),
        responses: {
          '202': ok('queued', ref('RunRequest')),
          '409': err('the run queue is full'),
          '422': err('a bad field, named'),
          ...withBody,
        },
      },
    },
    '/sessions/requests/{id}': {
      get: {
        summary: 'A queued run and the sessions it started',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': ok('the run', ref('RunRequest')),
          '404': err('unknown request'),
          ...common,
        },
      },
    },
    '/sessions/{id}': {
      get: {
        summary: 'One session with its children, events and chain cost',
        parameters: [idParam],
        responses: {
          '200': ok('the session', ref('Session')),
          '404': err('no such session'),
          ...common,
        },
      },
    },
    '/sessions/{id}/memories': {
      get: {
        summary:
          'The memories the session was given: in its opening block (`context`) or after a tool call (`hook`)',
        parameters: [idParam],
        responses: {
          '200': ok('memories given', {
            type: 'object',
            properties: { memories: { type: 'array', items: ref('SessionMemory') } },
          }),
          '404': err('no such session'),
          ...common,
        },
      },
    },
    '/sessions/{id}/stop': {
      post: {
        summary: 'Stop the session (SIGTERM to its process group)',
        parameters: [idParam],
        responses: {
          '200': ok('stopped', { type: 'object', properties: { stopped: { const: true } } }),
          '409': err('the session is not running'),
          ...withBody,
        },
      },
    },
    '/events': {
      get: {
        summary: 'Events, newest first',
        parameters: [
          ...paging,
          { name: 'level', in: 'query', schema: { enum: ['info', 'warning', 'critical'] } },
          { name: 'service', in: 'query', schema: { type: 'string' } },
          { name: 'session', in: 'query', schema: { type: 'integer' } },
          { name: 'source', in: 'query', schema: { enum: ['agent', 'system'] } },
        ],
        responses: {
          '200': ok('events', {
            type: 'object',
            properties: { events: { type: 'array', items: ref('Event') } },
          }),
          '400': err('a bad filter, named'),
          ...common,
        },
      },
    },
    '/memories': {
      get: {
        summary: 'Memories: active first, most confident first',
        parameters: [
          ...paging,
          {
            name: 'service',
            in: 'query',
            schema: { type: 'string' },
            description: '`general` for memories without a service',
          },
          { name: 'category', in: 'query', schema: ref('Category') },
          { name: 'status', in: 'query', schema: { enum: ['all', 'active', 'inactive'] } },
          { name: 'importance', in: 'query', schema: ref('Importance') },
          {
            name: 'archived',
            in: 'query',
            schema: { enum: ['true', 'false', 'yes', 'no'] },
            description: 'archived by someone (true) or not (false); both when absent',
          },
        ],
        responses: {
          '200': ok('memories', {
            type: 'object',
            properties: {
              memories: { type: 'array', items: ref('Memory') },
              total: { type: 'integer' },
              limit: { type: 'integer' },
              offset: { type: 'integer' },
            },
          }),
          '400': err('a bad filter, named'),
          ...common,
        },
      },
      post: {
        summary: 'Create a memory (operator, tier 0)',
        requestBody: json({
          type: 'object',
          required: ['category', 'observation'],
          properties: {
            service: nullable('string'),
            category: ref('Category'),
            observation: { type: 'string', maxLength: 2000 },
            confidence: { type: 'number', minimum: 0.3, maximum: 1 },
            pinned: { type: 'boolean' },
          },
        }),
        responses: {
          '201': ok('created', ref('Memory')),
          '422': err('a bad field, named'),
          ...withBody,
        },
      },
    },
    '/memories/search': {
      get: {
        summary:
          'Memories by meaning and by words, ranked by relevance x confidence x recency, each with why',
        parameters: [
          {
            name: 'q',
            in: 'query',
            required: true,
            schema: { type: 'string', minLength: 1, maxLength: 2000 },
          },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100 } },
          {
            name: 'service',
            in: 'query',
            schema: { type: 'string' },
            description: 'a service something names, or `general` for memories without one',
          },
          { name: 'category', in: 'query', schema: ref('Category') },
          {
            name: 'status',
            in: 'query',
            schema: { enum: ['active', 'inactive', 'all'], default: 'active' },
          },
          {
            name: 'since',
            in: 'query',
            schema: { type: 'string' },
            description: 'last reinforced at or after: `2024-05-01` or `2024-05-01T12:00:00Z`',
          },
          {
            name: 'until',
            in: 'query',
            schema: { type: 'string' },
            description: 'last reinforced before, same forms as `since`',
          },
        ],
        responses: {
          '200': ok('results, best first', {
            type: 'object',
            properties: {
              query: { type: 'string' },
              mode: {
                enum: ['hybrid', 'lexical'],
                description: '`lexical` when embeddings are off, failing, or have no vectors yet',
              },
              results: { type: 'array', items: ref('SearchResult') },
            },
          }),
          '400': err('a bad parameter, named in `field`'),
          ...common,
        },
      },
    },
    '/memories/bulk': {
      delete: {
        summary: 'Delete many memories in one request (history is kept)',
        requestBody: json({
          type: 'object',
          required: ['ids'],
          properties: { ids: { type: 'array', items: { type: 'integer' }, maxItems: 10000 } },
        }),
        responses: {
          '200': ok('deleted', { type: 'object', properties: { deleted: { type: 'integer' } } }),
          '422': err('bad ids'),
          ...withBody,
        },
      },
    },
    '/memories/{id}': {
      get: {
        summary: 'One memory',
        parameters: [idParam],
        responses: {
          '200': ok('the memory', ref('Memory')),
          '404': err('no such memory'),
          ...common,
        },
      },
      put: {
        summary:
          'Edit wording or confidence (restarts the decay clock), deactivate, reactivate (needs confidence >= 0.3), pin, set importance',
        parameters: [idParam],
        requestBody: json({
          type: 'object',
          properties: {
            observation: { type: 'string' },
            confidence: { type: 'number', minimum: 0, maximum: 1 },
            active: { type: 'boolean' },
            pinned: { type: 'boolean' },
            importance: {
              ...ref('Importance'),
              description: '`core` pins the memory; a new level drops the reinforcement boost',
            },
          },
        }),
        responses: {
          '200': ok('the memory after the change', ref('Memory')),
          '404': err('no such memory'),
          '422': err('a bad field, named; nothing changed'),
          ...withBody,
        },
      },
      delete: {
        summary: 'Delete a memory (its history is kept)',
        parameters: [idParam],
        responses: { '204': { description: 'deleted' }, '404': err('no such memory'), ...withBody },
      },
    },
    '/memories/{id}/archive': {
      post: {
        summary:
          'Archive a memory: inactive, with the reason and date kept (core memories cannot be)',
        parameters: [idParam],
        requestBody: {
          required: false,
          ...json({
            type: 'object',
            properties: { reason: { type: 'string', maxLength: 2000 } },
          }),
        },
        responses: {
          '200': ok('the archived memory', ref('Memory')),
          '404': err('no such memory'),
          '422': err('a core memory, or a bad reason; nothing changed'),
          ...withBody,
        },
      },
    },
    '/memories/{id}/restore': {
      post: {
        summary: 'Restore an archived (or otherwise inactive) memory: active again',
        parameters: [idParam],
        responses: {
          '200': ok('the restored memory', ref('Memory')),
          '404': err('no such memory'),
          '422': err('the memory is active; nothing changed'),
          ...withBody,
        },
      },
    },
    '/memories/{id}/history': {
      get: {
        summary: 'Every change to a memory, oldest first',
        parameters: [idParam],
        responses: {
          '200': ok('history', {
            type: 'object',
            properties: { history: { type: 'array', items: ref('MemoryHistory') } },
          }),
          ...common,
        },
      },
    },
    '/services': {
      get: {
        summary: 'Every service an event, memory or cooldown names, with what it is and counts',
        responses: {
          '200': ok('services', {
            type: 'object',
            properties: { services: { type: 'array', items: ref('Service') } },
          }),
          ...common,
        },
      },
    },
    '/services/{name}': {
      get: {
        summary: 'One service',
        parameters: [nameParam],
        responses: {
          '200': ok('the service', ref('Service')),
          '404': err('nothing names this service'),
          ...common,
        },
      },
      put: {
        summary:
          "Say what the service is (the operator's text wins over the agent's and the catalog's)",
        description:
          "An empty description removes the operator's text and restores the catalog's. The description is indexed with every memory of the service.",
        parameters: [nameParam],
        requestBody: json({
          type: 'object',
          required: ['description'],
          properties: { description: { type: 'string', maxLength: 500 } },
        }),
        responses: {
          '200': ok('the service after the change', ref('Service')),
          '400': err('a bad description (too long, control characters), named'),
          '404': err('nothing names this service'),
          ...withBody,
        },
      },
    },
    '/cooldowns': {
      get: {
        summary: 'Limits, per-service counts in the windows, recent actions and blocked attempts',
        responses: { '200': ok('cooldowns', { type: 'object' }), ...common },
      },
    },
    '/webhook': {
      post: {
        summary: 'An alert from monitoring: queues an `alert` run with the alert text as context',
        description:
          'JSON (a `text`, `message` or `summary` field, else the whole body) or text/plain; optional `tier`. The body size is limited by WATCHKEEPER_WEBHOOK_MAX_BYTES.',
        requestBody: {
          content: {
            'application/json': { schema: { type: 'object' } },
            'text/plain': { schema: { type: 'string' } },
          },
        },
        responses: {
          '202': ok('queued', { type: 'object', properties: { request_id: { type: 'string' } } }),
          '409': err('the run queue is full'),
          '415': err('not JSON or text'),
          ...withBody,
        },
      },
    },
    ...CONVERSATION_PATHS,
    ...GRAPH_PATHS,
  },
  components: {
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    schemas: {
      ...CONVERSATION_SCHEMAS,
      Error: {
        type: 'object',
        required: ['error'],
        properties: {
          error: {
            type: 'object',
            required: ['code', 'message'],
            properties: {
              code: { type: 'string' },
              message: { type: 'string' },
              field: { type: 'string' },
            },
          },
        },
      },
      Category: { enum: ['timing', 'dependency', 'behavior', 'remediation', 'maintenance'] },
      Memory: {
        type: 'object',
        properties: {
          id: { type: 'integer' },
          service: nullable('string'),
          category: ref('Category'),
          observation: { type: 'string' },
          confidence: { type: 'number' },
          active: { type: 'boolean' },
          pinned: { type: 'boolean' },
          created_at: time,
          updated_at: time,
          last_reinforced_at: time,
          session_id: nullable('integer'),
          tier: { type: 'integer', description: '0 = operator' },
          superseded_by: {
            ...nullable('integer'),
            description: 'the memory that replaced this one',
          },
          last_surfaced_at: time,
          surface_count: { type: 'integer' },
          importance: ref('Importance'),
          importance_boost: {
            type: 'number',
            description:
              'added by memory_reinforce (0.1 a call); promotion to core is suggested at 0.8 in all',
          },
          source: { enum: ['marker', 'tool', 'operator', 'conversation', 'import'] },
          source_ref: {
            ...nullable('string'),
            description: 'which marker, tool call or conversation range',
          },
          scope: { type: 'string', description: '`ops`, or a conversation scope' },
          archived_at: time,
          archive_reason: nullable('string'),
          access_count: { type: 'integer', description: 'reads by memory_query' },
          last_accessed_at: time,
        },
      },
      Importance: { enum: ['low', 'normal', 'high', 'core'] },
      SearchResult: {
        allOf: [
          ref('Memory'),
          {
            type: 'object',
            properties: {
              score: { type: 'number' },
              why: {
                type: 'object',
                description: 'every component of the score',
                properties: {
                  lexical_rank: nullable('integer'),
                  bm25: nullable('number'),
                  semantic_rank: nullable('integer'),
                  cosine: nullable('number'),
                  fused: { type: 'number' },
                  relevance: { type: 'number' },
                  confidence_weight: { type: 'number' },
                  recency_weight: { type: 'number' },
                  importance_weight: { type: 'number' },
                },
              },
            },
          },
        ],
      },
      Service: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          description: nullable('string'),
          description_source: { enum: ['operator', 'agent', 'catalog', null] },
          active_memories: { type: 'integer' },
          inactive_memories: { type: 'integer' },
          events: { type: 'integer' },
          last_event_at: time,
          cooldown_actions: { type: 'integer' },
          catalog: {
            type: ['object', 'null'],
            description: 'what the built-in catalog says, when it knows the service',
            properties: { name: { type: 'string' }, description: { type: 'string' } },
          },
        },
      },
      SessionMemory: {
        type: 'object',
        properties: {
          memory_id: { type: 'integer' },
          via: { enum: ['context', 'hook'] },
          score: nullable('number'),
          detail: {
            type: ['object', 'null'],
            description: '`reason` (pinned, relevant, confident) and `why` (the score components)',
          },
          service: nullable('string'),
          category: nullable('string'),
          observation: { ...nullable('string'), description: 'null once the memory is deleted' },
          created_at: time,
        },
      },
      MemoryHistory: {
        type: 'object',
        properties: {
          id: { type: 'integer' },
          memory_id: { type: 'integer' },
          action: {
            enum: [
              'created',
              'reinforced',
              'decayed',
              'deactivated',
              'edited',
              'reactivated',
              'pinned',
              'unpinned',
              'deleted',
              'superseded',
              'archived',
              'restored',
              'merged',
              'imported',
            ],
          },
          old_confidence: nullable('number'),
          new_confidence: nullable('number'),
          observation: nullable('string'),
          session_id: nullable('integer'),
          created_at: time,
          related_memory_id: {
            ...nullable('integer'),
            description: 'the other memory of the change (the successor, for `superseded`)',
          },
          source: {
            enum: ['marker', 'tool', 'operator', 'conversation', 'import', null],
            description: 'what made the change, when recorded',
          },
          evidence: {
            ...nullable('string'),
            description: 'evidence given with it (memory_reinforce), or the archive reason',
          },
        },
      },
      Event: {
        type: 'object',
        properties: {
          id: { type: 'integer' },
          session_id: nullable('integer'),
          source: { enum: ['agent', 'system'] },
          level: { enum: ['info', 'warning', 'critical'] },
          service: nullable('string'),
          message: { type: 'string' },
          created_at: time,
        },
      },
      Session: {
        type: 'object',
        properties: {
          id: { type: 'integer' },
          status: { enum: [...SESSION_STATUSES] },
          trigger: { enum: ['scheduled', 'manual', 'api', 'alert', 'escalation', 'import'] },
          tier: { type: 'integer' },
          model: nullable('string'),
          parent_session_id: nullable('integer'),
          started_at: time,
          ended_at: time,
          exit_code: nullable('integer'),
          cost_usd: nullable('number'),
          num_turns: nullable('integer'),
          duration_ms: nullable('integer'),
          response: nullable('string'),
          error: nullable('string'),
          simulated: { type: 'boolean' },
        },
      },
      RunRequest: {
        type: 'object',
        properties: {
          request_id: { type: 'string' },
          state: { enum: ['queued', 'running', 'done', 'failed'] },
          session_ids: { type: 'array', items: { type: 'integer' } },
        },
      },
    },
  },
} as const;
