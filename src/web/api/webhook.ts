/**
 * /api/v1/webhook: an alert from monitoring starts a chain with the alert text. The body is
 * JSON (its `text`, `message` or `summary` field, else the whole document) or plain text, at
 * most WATCHKEEPER_WEBHOOK_MAX_BYTES; `tier` (JSON field or query parameter) picks the start
 * tier, 1 by default. Answers 202 `{request_id}`.
 */
import { type Context, Hono } from 'hono';

import { AppError } from '../../errors.js';
import type { AppEnv } from '../app.js';
import type { WebDeps } from '../deps.js';
import { apiError } from '../errors.js';
import { parseTier } from '../run-input.js';
import { parseJson } from './json-body.js';

const TEXT_FIELDS = ['text', 'message', 'summary'] as const;

/** The body as text, or null when it is over `maxBytes` (declared or actually sent). */
async function limitedBody(c: Context, maxBytes: number): Promise<string | null> {
  const declared = c.req.header('Content-Length');
  if (declared !== undefined && Number(declared) > maxBytes) return null;
  const body = c.req.raw.body;
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The alert text and requested tier of a JSON alert. */
function fromJson(raw: string): { text: string; tier: unknown } {
  const value = parseJson(raw);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { text: JSON.stringify(value, null, 2), tier: undefined };
  }
  const obj = value as Record<string, unknown>;
  const field = TEXT_FIELDS.map((f) => obj[f]).find(
    (v): v is string => typeof v === 'string' && v.trim() !== '',
  );
  return { text: field ?? JSON.stringify(value, null, 2), tier: obj.tier };
}

/** Mounted at /api/v1/webhook (POST only); 413 over the size limit, 409 when the queue is full. */
export function webhookApi(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const maxBytes = deps.config.web.webhookMaxBytes;

  app.post('/', async (c) => {
    const type = (c.req.header('Content-Type') ?? '').split(';')[0]!.trim().toLowerCase();
    const json = type === 'application/json' || type.endsWith('+json');
    if (!json && !type.startsWith('text/')) {
      return apiError(
        c,
        415,
        'unsupported_media_type',
        'send the alert as application/json or text/plain',
      );
    }
    const raw = await limitedBody(c, maxBytes);
    if (raw === null) {
      return apiError(c, 413, 'too_large', `the alert is over the limit of ${maxBytes} bytes`);
    }
    const alert = json ? fromJson(raw) : { text: raw, tier: undefined };
    const startTier = parseTier(alert.tier ?? c.req.query('tier'), deps.config.runner.maxTier);
    const text = alert.text.trim();
    if (text === '') {
      throw new AppError('invalid_input', 'text: the alert is empty', { data: { field: 'text' } });
    }
    const ticket = deps.runner.trigger({
      trigger: 'alert',
      startTier,
      prompt: null,
      alert: text,
    });
    deps.log.info('alert received', { request: ticket.id, bytes: Buffer.byteLength(raw) });
    return c.json({ request_id: ticket.id }, 202);
  });

  return app;
}
