/**
 * Errors at the HTTP edge: JSON `{"error": {"code", "message"}}` for the API and scripts, a small
 * HTML message for htmx and forms, and a whole page (with the navigation) for a page the browser
 * asked for. Reported once, here.
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

import { type AppError, isAppError } from '../errors.js';
import type { Logger } from '../log.js';
import { isHtmx, renderView } from './render.js';

const STATUS: Record<string, ContentfulStatusCode> = {
  usage: 400,
  invalid_input: 422,
  not_found: 404,
  busy: 409,
  config_invalid: 500,
  migration_failed: 500,
  migration_changed: 500,
  io_failed: 500,
  db_unavailable: 503,
  unsupported: 501,
};

export function wantsJson(c: Context): boolean {
  return (
    c.req.path.startsWith('/api/') || (c.req.header('Accept') ?? '').includes('application/json')
  );
}

/** A page the browser navigated to (not htmx, not a script, not a form post). */
function wantsPage(c: Context): boolean {
  const method = c.req.method.toUpperCase();
  return (method === 'GET' || method === 'HEAD') && !isHtmx(c);
}

const HEADINGS: Partial<Record<number, { heading: string; hint: string }>> = {
  404: {
    heading: 'Not found',
    hint: 'The address may be mistyped, or what it pointed to was deleted or pruned.',
  },
  500: {
    heading: 'Something went wrong',
    hint: 'watchkeeper logged the details. Nothing was changed; try again, or go back.',
  },
};

/** The shared database is out of reach: not a bug, and nothing to retry but waiting. */
const DB_UNAVAILABLE = {
  heading: 'The database is unreachable',
  hint:
    'watchkeeper keeps trying to reach it; this page works again once it answers. Running ' +
    'sessions keep their markers until then.',
};

function errorPage(c: Context, status: ContentfulStatusCode, message: string, code?: string) {
  const text =
    (code === 'db_unavailable' ? DB_UNAVAILABLE : HEADINGS[status]) ??
    (status >= 500 ? HEADINGS[500]! : { heading: 'Not possible', hint: 'Go back and try again.' });
  const body = renderView(c, 'pages/error', {
    title: text.heading,
    nav: 'none',
    status,
    message,
    ...text,
  });
  return c.html(body, status);
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
  // 421 answers a name this server refuses: it shows nothing of the dashboard.
  if (wantsPage(c) && status !== 421) return errorPage(c, status, message, code);
  return c.html(`<p class="error" role="alert">${escapeHtml(message)}</p>`, status);
}

export function errorFromAppError(c: Context, err: AppError) {
  const field = typeof err.data?.field === 'string' ? err.data.field : undefined;
  return apiError(c, STATUS[err.code] ?? 500, err.code, err.message, field);
}

/** The codes of client errors hono and its validators throw themselves, by status. */
const HTTP_CODES: Partial<Record<number, string>> = {
  400: 'usage',
  404: 'not_found',
  409: 'busy',
  413: 'too_large',
  422: 'invalid_input',
};

/**
 * hono's own validators throw these for a body they cannot read (a route that forgot
 * `jsonObjectBody`): said in the words of the app's parsers, with the field named.
 */
function clientError(c: Context, err: HTTPException) {
  const status = err.status as ContentfulStatusCode;
  const raw = err.message.trim();
  if (/^Malformed JSON/i.test(raw)) {
    return apiError(c, status, 'usage', 'body: is not valid JSON', 'body');
  }
  if (/^Malformed FormData/i.test(raw)) {
    return apiError(c, status, 'usage', 'body: is not valid form data', 'body');
  }
  const message = raw !== '' ? raw : `the request was refused (HTTP ${status})`;
  return apiError(c, status, HTTP_CODES[status] ?? 'usage', message);
}

export function onError(log: Logger) {
  return (err: Error, c: Context) => {
    if (isAppError(err)) return errorFromAppError(c, err);
    if (err instanceof HTTPException && err.status >= 400 && err.status < 500) {
      return clientError(c, err);
    }
    log.error('request failed', { method: c.req.method, path: c.req.path, error: err });
    return apiError(c, 500, 'internal', 'internal error; see the watchkeeper log');
  };
}
