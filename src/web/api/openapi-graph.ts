/** The memory graph part of the OpenAPI document (openapi.ts spreads it in). */
import { common, err, ok } from './openapi-parts.js';

export const GRAPH_PATHS = {
  '/graph/remember': {
    get: {
      summary:
        'Recall from the memory graph: ideas grouped by topic, evolution chains in order, within a token budget (`watchkeeper graph remember --json`)',
      parameters: [
        {
          name: 'q',
          in: 'query',
          required: true,
          schema: { type: 'string', minLength: 1, maxLength: 1000 },
        },
        {
          name: 'budget',
          in: 'query',
          schema: { type: 'integer', minimum: 50, maximum: 100000, default: 1000 },
        },
        {
          name: 'session',
          in: 'query',
          schema: { type: 'string' },
          description: 'only these conversations (repeatable; a unique prefix will do)',
        },
      ],
      responses: {
        '200': ok('the answer: {query, mode, analysis, budget, tokens, note, groups, text}', {
          type: 'object',
        }),
        '400': err('no query, or a budget out of range'),
        '404': err('a session that names no indexed conversation'),
        ...common,
      },
    },
  },
  '/graph/stats': {
    get: {
      summary:
        'What the memory graph holds: conversations, files, topics, ideas by intent, entities, relations by type',
      responses: { '200': ok('counts', { type: 'object' }), ...common },
    },
  },
};
