/**
 * /api/v1/graph: recall from the memory graph (`remember`, the same answer as `watchkeeper graph
 * remember --json`), its counts, and `POST /index`, where the Claude Code plugin's Stop hook hands
 * a transcript to the running serve (queued, indexed in the background: the hook never waits).
 */
import { isAbsolute, normalize } from 'node:path';

import type { OpenAPIHono } from '@hono/zod-openapi';

import { AppError } from '../../errors.js';
import { countsJson, DEFAULT_BUDGET, rememberJson, transcriptUnder } from '../../graph/index.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { graphOf, indexQueueOf, transcriptRootsOf } from '../graph-instance.js';
import {
  apiRouter,
  common,
  createRoute,
  err,
  jsonObjectBody,
  jsonRequest,
  ok,
  withBody,
  z,
} from './openapi-app.js';

const MAX_QUERY = 1000;

const OUTSIDE =
  "transcript_path must name a transcript (.jsonl or .ndjson) in a folder of transcripts: Claude Code's projects, watchkeeper's session logs or WATCHKEEPER_GRAPH_ROOTS";

/**
 * The transcript a hook names: an absolute path whose file, symlinks followed, is a transcript in
 * a folder of transcripts. Whatever else it names gets the same answer, which never says whether
 * the path exists.
 */
function transcriptOf(value: unknown, roots: readonly string[]): string {
  const bad = (message: string) =>
    new AppError('usage', message, { data: { field: 'transcript_path' } });
  if (typeof value !== 'string' || value.trim() === '')
    throw bad('transcript_path must be a non-empty string');
  if (!isAbsolute(value)) throw bad('transcript_path must be an absolute path');
  const file = transcriptUnder(normalize(value), roots);
  if (file === null) throw bad(OUTSIDE);
  return file;
}

function budgetOf(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_BUDGET;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 50 || n > 100_000) {
    throw new AppError('usage', `budget must be a whole number from 50 to 100000, got "${value}"`, {
      data: { field: 'budget' },
    });
  }
  return n;
}

const QUERY_RULE = `q must be 1 to ${MAX_QUERY} characters: what to recall`;

const remember = createRoute({
  method: 'get',
  path: '/remember',
  summary:
    'Recall from the memory graph: ideas grouped by topic, evolution chains in order, within a token budget (`watchkeeper graph remember --json`)',
  request: {
    query: z.object({
      q: z
        .string({ error: QUERY_RULE })
        .refine((v) => v.trim() !== '' && v.trim().length <= MAX_QUERY, { error: QUERY_RULE }),
      budget: z
        .string()
        .refine((v) => v === '' || (/^\d+$/.test(v) && Number(v) >= 50 && Number(v) <= 100_000), {
          error: (issue) =>
            `budget must be a whole number from 50 to 100000, got "${String(issue.input)}"`,
        })
        .optional()
        .openapi({ type: 'integer', minimum: 50, maximum: 100_000, default: DEFAULT_BUDGET }),
      session: z
        .union([z.string(), z.array(z.string())])
        .optional()
        .openapi({ description: 'only these conversations (repeatable; a unique prefix will do)' }),
    }),
  },
  responses: {
    200: ok(
      'the answer',
      z.object({
        query: z.string(),
        mode: z.string(),
        analysis: z.record(z.string(), z.unknown()),
        used_hyde: z.boolean(),
        budget: z.number().int(),
        tokens: z.number().int(),
        note: z.string().nullable(),
        groups: z.array(z.unknown()),
        text: z.string(),
      }),
    ),
    400: err('no query, or a budget out of range'),
    404: err('a session that names no indexed conversation'),
    ...common,
  },
});

const stats = createRoute({
  method: 'get',
  path: '/stats',
  summary:
    'What the memory graph holds: conversations, files, topics, ideas by intent, entities, relations by type',
  responses: { 200: ok('counts', z.record(z.string(), z.unknown())), ...common },
});

const index = createRoute({
  method: 'post',
  path: '/index',
  summary:
    "Queue a transcript for indexing in serve's background (what the Claude Code plugin's Stop hook sends); returns at once",
  middleware: [jsonObjectBody] as const,
  request: {
    body: jsonRequest(
      z.object({
        transcript_path: z.string({ error: 'transcript_path must be a non-empty string' }).openapi({
          description:
            "absolute path of a .jsonl or .ndjson transcript in Claude Code's projects folder, watchkeeper's session logs or WATCHKEEPER_GRAPH_ROOTS (symlinks followed)",
        }),
        last_assistant_message: z
          .string({ error: 'last_assistant_message must be a string' })
          .nullable()
          .optional()
          .openapi({
            description: "the turn's last message: indexing waits until its end is in the file",
          }),
      }),
    ),
  },
  responses: {
    202: ok(
      'queued (or already waiting)',
      z.object({ status: z.string(), transcript_path: z.string() }),
    ),
    ...withBody,
    400: err('no transcript_path, not absolute, or not a transcript in a folder of transcripts'),
  },
});

const endpointProof = createRoute({
  method: 'get',
  path: '/endpoint-proof',
  summary:
    "serve proves it wrote serve-endpoint.json: HMAC-SHA256 of the challenge under the file's nonce (the Stop hook asks before it sends its token)",
  security: [],
  request: {
    query: z.object({
      challenge: z
        .string({ error: 'challenge must be 32 to 128 hexadecimal characters' })
        .regex(/^[0-9a-f]{32,128}$/, {
          error: 'challenge must be 32 to 128 hexadecimal characters',
        }),
    }),
  },
  responses: {
    200: ok('the proof', z.object({ proof: z.string() })),
    400: err('no challenge, or not hexadecimal'),
    404: err('this process wrote no endpoint file'),
    ...common,
  },
});

export function graphApi(deps: WebDeps): OpenAPIHono<AppEnv> {
  const app = apiRouter({ repeatable: ['session'] });

  app.openapi(remember, async (c) => {
    const q = (c.req.query('q') ?? '').trim();
    const graph = graphOf(deps);
    const labels = c.req.queries('session');
    const sessions = labels
      ? (await Promise.all(labels.map((s) => graph.views.resolveSession(s)))).map((s) => s.session)
      : undefined;
    const answer = await graph.remember(q, {
      budget: budgetOf(c.req.query('budget')),
      ...(sessions ? { sessions } : {}),
    });
    return c.json(rememberJson(answer), 200);
  });

  app.openapi(endpointProof, (c) => {
    if (!deps.endpointProof)
      throw new AppError('not_found', 'this process wrote no serve-endpoint.json');
    return c.json({ proof: deps.endpointProof(c.req.valid('query').challenge) }, 200);
  });

  app.openapi(stats, async (c) => c.json(countsJson(await graphOf(deps).stats()), 200));

  app.openapi(index, (c) => {
    const body = c.req.valid('json');
    const file = transcriptOf(body.transcript_path, transcriptRootsOf(deps));
    const last = body.last_assistant_message;
    // Only its end is looked for in the file (the CLI may not have written it yet).
    const untilText = typeof last === 'string' ? last.trim().slice(-80) : '';
    const status = indexQueueOf(deps).enqueue(file, untilText ? { untilText } : {});
    return c.json({ status, transcript_path: file }, 202);
  });
  return app;
}
