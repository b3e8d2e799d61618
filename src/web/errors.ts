/**
 * Errors at the HTTP edge: JSON `{"error": {"code", "message"}}` for the API and scripts, a small
 * HTML message for pages and htmx. Reported once, here.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

import { type AppError, isAppError } from '../errors.js';
import type { Logger } from '../log.js';

const STATUS: Record<string, ContentfulStatusCode> = {
  usage: 400,
  invalid_input: 422,
  not_found: 404,
  busy: 409,
  config_invalid: 500,
  migration_failed: 500,
  migration_changed: 500,
  io_failed: 500,
};

export function wantsJson(c: Context): boolean {
  return (
    c.req.path.startsWith('/api/') || (c.req.header('Accept') ?? '').includes('application/json')
  );
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

export function apiError(
  c: Context,
  status: ContentfulStatusCode,
  code: string,
  message: string,
  field?: string,
) {
  if (wantsJson(c)) {
    return c.json({ error: { code, message, ...(field ? { field } : {}) } }, status);
  }
  return c.html(`<p class="error" role="alert">${escapeHtml(message)}</p>`, status);
}

export function errorFromAppError(c: Context, err: AppError) {
  const field = typeof err.data?.field === 'string' ? err.data.field : undefined;
  return apiError(c, STATUS[err.code] ?? 500, err.code, err.message, field);
}

export function onError(log: Logger) {
  return (err: Error, c: Context) => {
    if (isAppError(err)) return errorFromAppError(c, err);
    log.error('request failed', { method: c.req.method, path: c.req.path, error: err });
    return apiError(c, 500, 'internal', 'internal error; see the watchkeeper log');
  };
}
