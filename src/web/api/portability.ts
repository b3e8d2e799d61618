/**
 * /api/v1/memories/export, /import and /merge: memories out (JSON Lines or CSV of the Memories
 * filters), in (a watchkeeper export or an MCP memory server file; `?dry_run=true` only
 * reports), and merged into the first of them.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';

import { IMPORTANCES, memoryJson } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { CATEGORIES } from '../../memory/index.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { firstMissing, parseIds } from '../memory-input.js';
import { MEMORY_STATUSES } from '../memory-query.js';
import { exportResponse, importText } from '../memory-transfer.js';
import {
  apiRouter,
  common,
  createRoute,
  err,
  flag,
  jsonObjectBody,
  jsonRequest,
  oneOf,
  ok,
  withBody,
  z,
} from './openapi-app.js';
import { MemorySchema } from './openapi-schemas.js';

const exportMemories = createRoute({
  method: 'get',
  path: '/export',
  summary: 'Memories of a filter as JSON Lines (watchkeeper-memory/1, with history) or CSV',
  description:
    'The filters of the Memories page (every status unless `status` says). JSON Lines: a header line `{"format":"watchkeeper-memory/1", ...}`, a line per service description, a line per memory with its history; streamed.',
  request: {
    query: z.object({
      format: oneOf('format', ['jsonl', 'csv']),
      service: z.string().optional(),
      category: oneOf('category', CATEGORIES),
      status: oneOf('status', MEMORY_STATUSES),
      importance: oneOf('importance', IMPORTANCES),
      archived: oneOf('archived', ['yes', 'no', 'true', 'false']),
    }),
  },
  responses: {
    200: {
      description: 'the export, as an attachment',
      content: {
        'application/x-ndjson': { schema: z.string() },
        'text/csv': { schema: z.string() },
      },
    },
    400: err('a filter it does not understand, named'),
    ...common,
  },
});

const ImportItemSchema = z.object({
  line: z.number().int(),
  action: z.string(),
  kind: z.string(),
  memory_id: z.number().int().nullable(),
  text: z.string().nullable(),
  why: z.string(),
});

const ImportReportSchema = z
  .object({
    format: z.enum(['watchkeeper-memory/1', 'mcp-memory']),
    dry_run: z.boolean(),
    items: z.array(ImportItemSchema).openapi({ description: 'the first 2,000 lines decided' }),
  })
  .loose()
  .openapi('MemoryImportReport', {
    description:
      'watchkeeper: `counts` and `services` ({created, reinforced, skipped, refused}); MCP: `entities`, `observations`, `relations` and `malformed`',
  });

const importMemories = createRoute({
  method: 'post',
  path: '/import',
  summary: 'Import a watchkeeper export or an MCP memory server file (the body is the file)',
  description:
    'Through the memory service: a memory that says what an active one says reinforces it; of two that say otherwise the newer stays active; a record imported before, or of a memory deleted, reworded, merged or superseded here since, is skipped (never brought back); a bad line (a field the API would refuse, a repeated id, a cycle of links) is refused with its number. At most 16 MB.',
  request: {
    query: z.object({ dry_run: flag().openapi({ description: 'report only, write nothing' }) }),
    body: {
      required: true,
      content: {
        'application/x-ndjson': { schema: z.string() },
        'text/*': { schema: z.string() },
      },
    },
  },
  responses: {
    200: ok('what was (or would be) done with each line', ImportReportSchema),
    422: err('a file that is neither a watchkeeper export nor an MCP memory file'),
    ...withBody,
  },
});

const MergeBody = z
  .object({
    ids: z.array(z.union([z.number().int(), z.string()])).openapi({
      description: 'two or more; the first is the survivor',
    }),
    text: z.string().nullable().optional().openapi({ description: "the survivor's wording" }),
    confidence: z.number().min(0).max(1).optional().openapi({
      description: 'the survivor’s confidence (default: the best of all)',
    }),
  })
  .openapi('MemoryMergeInput');

const mergeMemories = createRoute({
  method: 'post',
  path: '/merge',
  summary: 'Merge memories into the first: best confidence, union of provenance, history kept',
  middleware: [jsonObjectBody] as const,
  request: { body: jsonRequest(MergeBody) },
  responses: {
    200: ok('merged', z.object({ survivor: MemorySchema, merged: z.array(MemorySchema) })),
    404: err('an id that names no memory'),
    422: err('a bad field, named'),
    ...withBody,
  },
});

export function portabilityApi(deps: WebDeps): OpenAPIHono<AppEnv> {
  const app = apiRouter({ bodyError: 'invalid_input' });

  app.openapi(exportMemories, (c) => exportResponse(c, deps) as never);

  app.openapi(importMemories, async (c) => {
    const dry = c.req.query('dry_run') ?? '';
    const outcome = await importText(deps, await c.req.text(), ['true', '1', 'on'].includes(dry));
    return c.json(outcome, 200);
  });

  app.openapi(mergeMemories, async (c) => {
    const body = c.req.valid('json');
    const ids = parseIds(body.ids);
    const missing = await firstMissing(deps.stores, ids);
    if (missing !== undefined) {
      throw new AppError('not_found', `memory ${missing} does not exist`, {
        data: { id: missing },
      });
    }
    const { survivor, merged } = await deps.knowledge.memory.merge(ids, {
      text: body.text ?? null,
      ...(body.confidence === undefined ? {} : { confidence: body.confidence }),
    });
    return c.json({ survivor: memoryJson(survivor), merged: merged.map(memoryJson) }, 200);
  });

  return app;
}
