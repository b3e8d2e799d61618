/**
 * The routes that read many memories: the filtered list and the ranked search. Their query
 * schemas report problems in the order memory-query.ts and search-query.ts check them.
 */
import { IMPORTANCES } from '../../../db/index.js';
import { CATEGORIES } from '../../../memory/index.js';
import { MAX_QUERY_LENGTH, MEMORY_STATUSES } from '../../memory-query.js';
import { MAX_SEARCH_LIMIT } from '../../search-query.js';
import { common, createRoute, err, oneOf, ok, pagingQuery, z } from '../openapi-app.js';
import { MemorySchema, SearchResultSchema } from '../openapi-schemas.js';

// In the order memory-query.ts reports problems: the first one is the answer.
const ListQuery = z.object({
  importance: oneOf('importance', IMPORTANCES),
  archived: oneOf('archived', ['yes', 'no', 'true', 'false']).openapi({
    description: 'archived by someone (true) or not (false); both when absent',
  }),
  category: oneOf('category', CATEGORIES),
  status: oneOf('status', MEMORY_STATUSES),
  service: z
    .string()
    .optional()
    .openapi({ description: '`general` for memories without a service' }),
  instance: z.string().optional().openapi({
    description:
      "one instance's memories (`cluster-a`), or `fleet` for the shared ones; every instance's when absent",
  }),
  ...pagingQuery(),
});

export const listMemories = createRoute({
  method: 'get',
  path: '/',
  summary: 'Memories: active first, most confident first',
  request: { query: ListQuery },
  responses: {
    200: ok(
      'memories',
      z.object({
        memories: z.array(MemorySchema),
        total: z.number().int(),
        limit: z.number().int(),
        offset: z.number().int(),
      }),
    ),
    400: err('a bad filter, named'),
    ...common,
  },
});

// In the order search-query.ts checks them; it also checks what a schema cannot (a known service).
const SearchQuery = z.object({
  q: z
    .string()
    .refine((v) => v.trim() !== '', { error: 'q: give the words to search for' })
    .refine((v) => v.trim().length <= MAX_QUERY_LENGTH, {
      error: `q: at most ${MAX_QUERY_LENGTH} characters`,
    }),
  limit: z
    .string()
    .refine(
      (v) =>
        v.trim() === '' ||
        (/^\d{1,4}$/.test(v.trim()) && Number(v) >= 1 && Number(v) <= MAX_SEARCH_LIMIT),
      {
        error: `limit: must be a whole number from 1 to ${MAX_SEARCH_LIMIT}`,
      },
    )
    .optional()
    .openapi({ type: 'integer', minimum: 1, maximum: MAX_SEARCH_LIMIT }),
  service: z
    .string()
    .optional()
    .openapi({ description: 'a service something names, or `general` for memories without one' }),
  category: oneOf('category', CATEGORIES, ': '),
  status: oneOf('status', MEMORY_STATUSES, ': ').openapi({ default: 'active' }),
  since: z.string().optional().openapi({
    description: 'last reinforced at or after: `2024-05-01` or `2024-05-01T12:00:00Z`',
  }),
  until: z
    .string()
    .optional()
    .openapi({ description: 'last reinforced before, same forms as `since`' }),
  explain: z.enum(['1', '0', 'true', 'false']).optional().openapi({
    description: '`1`: also list the candidates that were cut (`cut`), each with its reason',
  }),
});

export const searchMemories = createRoute({
  method: 'get',
  path: '/search',
  summary:
    'Memories by meaning and by words, ranked by relevance x confidence x recency, each with why',
  request: { query: SearchQuery },
  responses: {
    200: ok(
      'results, best first',
      z.object({
        query: z.string(),
        mode: z.enum(['hybrid', 'lexical']).openapi({
          description: '`lexical` when embeddings are off, failing, or have no vectors yet',
        }),
        results: z.array(SearchResultSchema),
        cut: z
          .array(
            SearchResultSchema.extend({
              reason: z.enum(['no evidence', 'below threshold', 'outranked']),
              detail: z.string(),
            }),
          )
          .optional()
          .openapi({
            description: 'with `explain=1`: candidates that did not come back, best first',
          }),
      }),
    ),
    400: err('a bad parameter, named in `field`'),
    ...common,
  },
});
