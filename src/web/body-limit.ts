/**
 * Every request body is read here, with the limit of its route, before anything parses it: a
 * declared Content-Length over the limit is refused unread, and a chunked (or mislabelled) body
 * is counted as it arrives and refused the moment it passes the limit, so an oversized body
 * costs at most the limit in memory. Over the limit: 413, JSON for the API, a short HTML message
 * for forms. (hono/body-limit trusts Content-Length when present, so it is not used.)
 */
import type { Context, MiddlewareHandler } from 'hono';

import type { WebConfig } from '../config/index.js';
import type { AppEnv } from './context.js';
import { apiError } from './errors.js';

const KB = 1024;

interface Rule {
  method: string;
  path: RegExp;
  maxBytes: number;
}

/**
 * Limits per route, first match wins. Sized for the largest valid input: a 20,000-character
 * prompt, a 2,000-character observation or a 500-character service description percent-encoded (up to 9 bytes a character), 10,000
 * ids for a bulk action.
 */
export function bodyLimits(web: WebConfig): Rule[] {
  return [
    { method: 'POST', path: /^\/login$/, maxBytes: 4 * KB },
    { method: 'POST', path: /^\/logout$/, maxBytes: 1 * KB },
    { method: 'POST', path: /^\/api\/v1\/webhook\/?$/, maxBytes: web.webhookMaxBytes },
    { method: '*', path: /^(\/api\/v1)?\/memories\/bulk(\/|$)/, maxBytes: 1024 * KB },
    { method: 'POST', path: /^\/sessions\/trigger$|^\/api\/v1\/sessions\/?$/, maxBytes: 256 * KB },
    // A chat: its conversation becomes the prompt of a run, as above.
    { method: 'POST', path: /^\/v1\/chat\/completions$/, maxBytes: 256 * KB },
    // A message of 100,000 characters, JSON-escaped (up to 6 bytes a character for \uXXXX).
    { method: 'POST', path: /^\/api\/v1\/conversations\/[^/]+\/messages$/, maxBytes: 640 * KB },
    // A memory file to import (watchkeeper export or MCP memory server), as a multipart upload.
    {
      method: 'POST',
      path: /^(\/api\/v1)?\/memories\/import\/?$/,
      maxBytes: 16 * 1024 * KB + 64 * KB,
    },
    { method: '*', path: /^(\/api\/v1)?\/memories(\/|$)/, maxBytes: 32 * KB },
    // A 500-character description, percent-encoded, and the CSRF field.
    { method: '*', path: /^(\/api\/v1)?\/services(\/|$)/, maxBytes: 8 * KB },
    { method: '*', path: /./, maxBytes: 16 * KB },
  ];
}

export function limitFor(rules: readonly Rule[], method: string, path: string): number {
  const m = method.toUpperCase();
  return rules.find((r) => (r.method === '*' || r.method === m) && r.path.test(path))!.maxBytes;
}

function tooLarge(c: Context, maxBytes: number) {
  return apiError(
    c,
    413,
    'too_large',
    `the request body is over the limit of ${maxBytes} bytes for ${c.req.method} ${c.req.path}`,
  );
}

export function bodyLimit(web: WebConfig): MiddlewareHandler<AppEnv> {
  const rules = bodyLimits(web);
  return async (c, next) => {
    const body = c.req.raw.body;
    if (!body) return next();
    const maxBytes = limitFor(rules, c.req.method, c.req.path);
    const declared = c.req.header('Content-Length');
    if (declared !== undefined && Number(declared) > maxBytes) return tooLarge(c, maxBytes);
    const reader = body.getReader();
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      // Not cancelled: @hono/node-server drains what is left (briefly, bounded) once the 413
      // is sent, then closes the connection; cancelling would drop the socket before the answer.
      if (total > maxBytes) return tooLarge(c, maxBytes);
      chunks.push(value);
    }
    c.req.raw = new Request(c.req.raw, { body: Buffer.concat(chunks, total) });
    return next();
  };
}
