/**
 * How every router under /api/v1 is built, so that the OpenAPI document cannot drift from the
 * routes: each route is a `createRoute` whose zod schemas validate its path, query and JSON body
 * and describe its answers, mounted with `app.openapi(route, handler)` on an `apiRouter()`;
 * routes/api.ts generates /api/v1/openapi.json from them.
 *
 * A request that breaks a schema is refused by `validationHook` with the app's error JSON,
 * `{"error": {"code", "message", "field"}}`: 400 `usage` for the query, 404 for a path the route
 * does not take (as an unmatched route would), and the router's `bodyError` for the body. Rules a
 * schema cannot say (control characters, a service something names, MAX_TIER) stay in the
 * shared parsers the dashboard's forms use too; handlers pass the validated values through them.
 *
 * A route with a JSON body lists `jsonObjectBody` (or `optionalJsonObjectBody`) as its
 * middleware: it runs before the validators and refuses a body that is not a JSON object with
 * the API's 400 rather than the validator's own answers (test/web/openapi.test.ts sends every
 * such route a form body). Where a route checked its path before its body (a memory that does
 * not exist is a 404 whatever the body), a middleware before that one keeps the order.
 */
import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

import { AppError, type ErrorCode } from '../../errors.js';
import type { AppEnv } from '../context.js';
import { jsonObject } from './json-body.js';

export { createRoute, z } from '@hono/zod-openapi';

interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
  expected?: string;
}

function noRoute(c: Context): AppError {
  return new AppError('not_found', `no route for ${c.req.method} ${c.req.path}`);
}

function fieldOf(issue: Issue, target: string): string {
  if (issue.code === 'unrecognized_keys' && issue.keys?.[0]) return issue.keys[0];
  const path = issue.path.map(String).join('.');
  return path !== '' ? path : target === 'json' ? 'body' : target;
}

function messageOf(issue: Issue, field: string): string {
  let message = issue.message;
  // zod's own wording for the common cases, in the words of the app's parsers.
  if (issue.code === 'unrecognized_keys' && message.startsWith('Unrecognized key')) {
    message = 'unknown field';
  } else if (issue.code === 'invalid_type' && message.startsWith('Invalid input')) {
    if (/received undefined$/.test(message)) message = 'is required';
    else if (issue.expected === 'string') message = 'must be text';
    else if (issue.expected) message = `must be a ${issue.expected}`;
  }
  // A schema message may already be a whole sentence about the field ("limit must be ...").
  return message.startsWith(`${field} `) || message.startsWith(`${field}:`)
    ? message
    : `${field}: ${message}`;
}

/** The app's error for a request that breaks a route's schema (the first problem, named). */
export function validationHook(bodyError: ErrorCode = 'usage') {
  return (
    result: { target: string } & ({ success: true } | { success: false; error: unknown }),
    c: Context,
  ): undefined => {
    if (result.success) return undefined;
    if (result.target === 'param') throw noRoute(c);
    const issue = (result.error as { issues: Issue[] }).issues[0]!;
    const field = fieldOf(issue, result.target);
    const code = result.target === 'json' ? bodyError : 'usage';
    throw new AppError(code, messageOf(issue, field), { data: { field } });
  };
}

/**
 * A parameter given twice counts once, its first value, as `c.req.query` reads it (the
 * validators would see a list), unless the route takes a list (`repeatable`).
 */
function firstQueryValues(repeatable: readonly string[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const url = new URL(c.req.url);
    const keys = [...url.searchParams.keys()];
    const repeated = keys.filter((k, i) => keys.indexOf(k) !== i && !repeatable.includes(k));
    if (repeated.length > 0) {
      for (const key of new Set(repeated)) url.searchParams.set(key, url.searchParams.get(key)!);
      const raw = c.req.raw;
      const body = raw.method === 'GET' || raw.method === 'HEAD' ? null : raw.body;
      c.req.raw = new Request(url, {
        method: raw.method,
        headers: raw.headers,
        body,
        ...(body ? { duplex: 'half' } : {}),
      } as RequestInit);
    }
    await next();
  };
}

/**
 * A router of /api/v1 routes; `bodyError` is the code of a body that breaks its schema, and
 * `repeatable` the query parameters that may be given more than once.
 */
export function apiRouter(
  options: { bodyError?: ErrorCode; repeatable?: readonly string[] } = {},
): OpenAPIHono<AppEnv> {
  const app = apiRoot(options.bodyError);
  app.use('*', firstQueryValues(options.repeatable ?? []));
  return app;
}

/** The router the resource routers are mounted on (routes/api.ts): its own routes take no query. */
export function apiRoot(bodyError?: ErrorCode): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook(bodyError) });
}

/** Before the validators: the body must be a JSON object (400 `usage` otherwise). */
export const jsonObjectBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  jsonObject(c, await c.req.text());
  await next();
};

/**
 * For a route whose body may be left out: a blank body, whatever its type, counts as `{}`;
 * anything else must be a JSON object.
 */
export const optionalJsonObjectBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  const raw = await c.req.text();
  if (raw.trim() === '') {
    const headers = new Headers(c.req.raw.headers);
    headers.delete('Content-Type');
    c.req.raw = new Request(c.req.raw.url, { method: c.req.method, headers });
  } else {
    jsonObject(c, raw);
  }
  await next();
};

/**
 * Route middleware runs before the validators; a route with a body checks its digit-only ids
 * first, so a path it does not take stays a 404 whatever the body is.
 */
export const digitIdFirst: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!/^[0-9]+$/.test(c.req.param('id') ?? '')) throw noRoute(c);
  await next();
};

/**
 * An error answer a handler gives itself, typed for its route (under /api/ errors.ts `apiError`
 * always answers JSON, in this shape).
 */
export function errorJson<S extends ContentfulStatusCode>(
  c: Context,
  status: S,
  code: string,
  message: string,
) {
  return c.json({ error: { code, message } }, status);
}

// --- schemas every router uses --------------------------------------------------------------

export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      field: z.string().optional(),
    }),
  })
  .openapi('Error');

/** A text field of a body: "is required" when absent, "must be text" when not a string. */
export const text = () =>
  z.string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be text') });

/** A time as the API writes it: ISO 8601 in UTC, null when unset. */
export const time = z.string().nullable().openapi({ format: 'date-time' });

export const json = <T extends z.ZodType>(schema: T) => ({
  content: { 'application/json': { schema } },
});
export const ok = <T extends z.ZodType>(description: string, schema: T) => ({
  description,
  ...json(schema),
});
export const err = (description: string) => ({ description, ...json(ErrorSchema) });

/** What any authenticated route may answer. */
export const common = {
  401: err('missing or wrong credential'),
  403: err('missing or wrong CSRF token, or a cross-site request'),
  421: err('a Host this dashboard does not answer to (WATCHKEEPER_ALLOWED_HOSTS)'),
} as const;
/** What any route with a body may answer. */
export const withBody = {
  ...common,
  400: err('the body is not a JSON object, or a bad field, named'),
  413: err("the body is over this route's size limit"),
} as const;

/** A JSON request body validated by `schema`. */
export const jsonRequest = <T extends z.ZodType>(schema: T, required = true) => ({
  required,
  ...json(schema),
});

/** A whole number from 0 to `max` in a query string (blank means the default). */
export function wholeNumber(name: string, max: number, min = 0) {
  return z
    .string()
    .regex(/^\d*$/, { error: `${name} must be a whole number from ${min} to ${max}` })
    .refine((v) => v === '' || Number(v) <= max, {
      error: `${name} must be a whole number from ${min} to ${max}`,
    })
    .optional()
    .openapi({ type: 'integer', minimum: min, maximum: max });
}

/** `limit` and `offset`, as json-body.ts `paging` reads them. */
export function pagingQuery(maxLimit = 1000) {
  return {
    // 0 is taken, as 1.
    limit: wholeNumber('limit', maxLimit),
    offset: wholeNumber('offset', 10_000_000),
  };
}

/** A digit-only id in the path; anything else is a 404, as an unmatched route was. */
export const idParams = z.object({
  id: z
    .string()
    .regex(/^[0-9]+$/)
    .openapi({ param: { name: 'id', in: 'path' }, type: 'integer', minimum: 1 }),
});

/**
 * A query word from a fixed list, as the shared query parsers take it: any case, blank for none.
 * `separator` is how the error joins the field and the reason (": " or " ").
 */
export function oneOf(field: string, values: readonly string[], separator = ' ') {
  const pattern = `^\\s*(${values.join('|')})?\\s*$`;
  return z
    .string()
    .regex(new RegExp(pattern, 'i'), {
      error: `${field}${separator}must be one of ${values.join(', ')}`,
    })
    .optional()
    .openapi({ description: `one of ${values.join(', ')} (any case)` });
}

/** true or false, also in the words a form sends (memory-input.ts `bool`); null or blank: unset. */
export const flag = () =>
  z
    .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'on', 'off', ''])], {
      error: 'must be true or false',
    })
    .nullable()
    .optional();
