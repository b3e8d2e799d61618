/**
 * Errors of the OpenAI-compatible routes in OpenAI's shape, `{"error": {message, type, code,
 * param}}`, which OpenAI's clients read (the rest of the API answers `{"error": {code, message}}`).
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

import { isAppError } from '../errors.js';
import type { Logger } from '../log.js';

export type OpenAiErrorType =
  'invalid_request_error' | 'authentication_error' | 'rate_limit_error' | 'server_error';

export interface OpenAiError {
  message: string;
  type: OpenAiErrorType;
  code: string | null;
  param: string | null;
}

export function openAiError(
  c: Context,
  status: ContentfulStatusCode,
  error: Omit<OpenAiError, 'param'> & { param?: string | null },
) {
  return c.json({ error: { ...error, param: error.param ?? null } }, status);
}

/** What Bearer-less or wrong-token requests get (the chat takes no cookie, so no CSRF either). */
export function openAiUnauthorized(c: Context) {
  return openAiError(c, 401, {
    message:
      'send the API token (WATCHKEEPER_AUTH_TOKEN) as Authorization: Bearer TOKEN (the apiKey of an OpenAI client)',
    type: 'authentication_error',
    code: 'invalid_api_key',
  });
}

/** The router's error handler: the app's errors (AppError) said in OpenAI's shape. */
export function openAiOnError(log: Logger) {
  return (err: Error, c: Context) => {
    if (isAppError(err)) {
      const param = typeof err.data?.field === 'string' ? err.data.field : null;
      if (err.code === 'busy') {
        return openAiError(c, 429, {
          message: err.message,
          type: 'rate_limit_error',
          code: 'queue_full',
        });
      }
      if (err.code === 'usage' || err.code === 'invalid_input') {
        return openAiError(c, 400, {
          message: err.message,
          type: 'invalid_request_error',
          code: 'invalid_value',
          param,
        });
      }
      if (err.code === 'db_unavailable') {
        return openAiError(c, 503, { message: err.message, type: 'server_error', code: err.code });
      }
    }
    log.error('request failed', { method: c.req.method, path: c.req.path, error: err });
    return openAiError(c, 500, {
      message: 'internal error; see the watchkeeper log',
      type: 'server_error',
      code: null,
    });
  };
}
