/**
 * JSON request bodies: a clear 400 when they are not a JSON object. Their size is limited before
 * they get here, per route, by body-limit.ts.
 */
import type { Context } from 'hono';

import { AppError } from '../../errors.js';

/** A body already read, as a JSON object (openapi-app.ts `jsonObjectBody` reads it). */
export function jsonObject(c: Context, raw: string): Record<string, unknown> {
  const type = c.req.header('Content-Type') ?? '';
  if (!type.startsWith('application/json')) {
    throw new AppError('usage', 'send the body as JSON with Content-Type: application/json');
  }
  const value = parseJson(raw);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AppError('usage', 'body must be a JSON object');
  }
  return value as Record<string, unknown>;
}

/** JSON.parse with the API's error for a body that is not JSON. */
export function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new AppError('usage', 'body is not valid JSON');
  }
}

/** `limit` and `offset` query parameters, checked. */
export function paging(
  c: Context,
  defaultLimit: number,
  maxLimit = 1000,
): { limit: number; offset: number } {
  const num = (name: string, fallback: number, max: number) => {
    const v = c.req.query(name);
    if (v === undefined || v === '') return fallback;
    if (!/^\d+$/.test(v) || Number(v) > max) {
      throw new AppError('usage', `${name} must be a whole number from 0 to ${max}`, {
        data: { field: name },
      });
    }
    return Number(v);
  };
  return {
    limit: Math.max(1, num('limit', defaultLimit, maxLimit)),
    offset: num('offset', 0, 10_000_000),
  };
}
