/**
 * /api/v1/webhook: an alert from monitoring starts a chain with the alert text. The body is
 * JSON (its `text`, `message` or `summary` field, else the whole document) or plain text, at
 * most WATCHKEEPER_WEBHOOK_MAX_BYTES; `tier` (JSON field or query parameter) picks the start
 * tier, 1 by default. Answers 202 `{request_id}`.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';

import { AppError } from '../../errors.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { apiError } from '../errors.js';
import { operatorText, parseTier } from '../run-input.js';
import { parseJson } from './json-body.js';
import { apiRouter, createRoute, err, ok, withBody, z } from './openapi-app.js';

const TEXT_FIELDS = ['text', 'message', 'summary'] as const;

interface Alert {
  text: string;
  /** Where the text came from, for an error that names it. */
  field: string;
  tier: unknown;
}

/**
 * The alert text and requested tier of a JSON alert: the first non-blank text field, else the
 * whole document. A text field that is there but blank is an empty alert, not a document.
 */
function fromJson(raw: string): Alert {
  const value = parseJson(raw);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { text: JSON.stringify(value, null, 2), field: 'body', tier: undefined };
  }
  const obj = value as Record<string, unknown>;
  const given = TEXT_FIELDS.filter((f) => typeof obj[f] === 'string');
  const field = given.find((f) => (obj[f] as string).trim() !== '') ?? given[0];
  if (field === undefined) {
    return { text: JSON.stringify(value, null, 2), field: 'body', tier: obj.tier };
  }
  return { text: obj[field] as string, field, tier: obj.tier };
}

function isJson(type: string): boolean {
  return type === 'application/json' || type.endsWith('+json');
}

function mediaType(c: { req: { header(name: string): string | undefined } }): string {
  return (c.req.header('Content-Type') ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * Before the validators, which would refuse any other type or a body that is not JSON in their
 * own words: JSON (any document) or text, else 415; JSON that does not parse is a 400.
 */
const alertBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  const type = mediaType(c);
  if (!isJson(type) && !type.startsWith('text/')) {
    return apiError(
      c,
      415,
      'unsupported_media_type',
      'send the alert as application/json or text/plain',
    );
  }
  // At most WATCHKEEPER_WEBHOOK_MAX_BYTES: body-limit.ts refused anything larger unread.
  const raw = await c.req.text();
  if (isJson(type)) parseJson(raw);
  return next();
};

const receiveAlert = createRoute({
  method: 'post',
  path: '/',
  summary: 'An alert from monitoring: queues an `alert` run with the alert text as context',
  description:
    'JSON (a `text`, `message` or `summary` field, else the whole body) or text/plain; optional `tier` (JSON field or query parameter). The body size is limited by WATCHKEEPER_WEBHOOK_MAX_BYTES.',
  middleware: [alertBody] as const,
  request: {
    query: z.object({
      tier: z.string().optional().openapi({ description: 'the start tier, 1 by default' }),
    }),
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z.unknown().openapi({
            description: 'any JSON document; its `text`, `message` or `summary` is the alert',
          }),
        },
        'text/*': { schema: z.string() },
      },
    },
  },
  responses: {
    202: ok(
      'queued, or counted on the run the same alert text started within WATCHKEEPER_ALERT_DEDUP_WINDOW',
      z.object({
        request_id: z.string(),
        repeats: z.number().int().openapi({
          description: 'how many more times this alert came within the window (0: a new run)',
        }),
      }),
    ),
    409: err('the run queue is full'),
    415: err('not JSON or text'),
    422: err('an empty alert or a bad tier, named'),
    ...withBody,
  },
});

/** Mounted at /api/v1/webhook (POST only); 409 when the queue is full. */
export function webhookApi(deps: WebDeps): OpenAPIHono<AppEnv> {
  const app = apiRouter();

  app.openapi(receiveAlert, async (c) => {
    const raw = await c.req.text();
    const alert = isJson(mediaType(c))
      ? fromJson(raw)
      : { text: raw, field: 'text', tier: undefined };
    const startTier = parseTier(alert.tier ?? c.req.query('tier'), deps.config.runner.maxTier);
    const text = operatorText(alert.field, alert.text).trim();
    if (text === '') {
      throw new AppError('invalid_input', `${alert.field}: the alert is empty`, {
        data: { field: alert.field },
      });
    }
    const ticket = deps.runner.trigger({
      trigger: 'alert',
      startTier,
      prompt: null,
      alert: text,
    });
    deps.log.info('alert received', { request: ticket.id, bytes: Buffer.byteLength(raw) });
    return c.json({ request_id: ticket.id, repeats: ticket.repeats }, 202);
  });

  return app;
}
