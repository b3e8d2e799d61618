/**
 * /api/v1/openapi.json: generated, on the first request, from the routes the API router holds
 * (their createRoute schemas), so it documents exactly what they validate and answer.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';

import type { AppEnv } from '../context.js';
import { createRoute, ok, z } from './openapi-app.js';

const INFO = {
  title: 'watchkeeper API',
  version: '1',
  description:
    'Sessions, events, memories, services and cooldowns of a watchkeeper sidecar. Authenticate with ' +
    '`Authorization: Bearer TOKEN` (WATCHKEEPER_AUTH_TOKEN). Times are ISO 8601 strings in UTC; ' +
    'errors are `{"error": {"code", "message"}}`.',
};

const getDocument = createRoute({
  method: 'get',
  path: '/openapi.json',
  summary: 'This document',
  security: [],
  responses: { 200: ok('the document', z.record(z.string(), z.unknown())) },
});

/** The document of everything `app` serves (call after every router is mounted). */
export function openApiDocument(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
  });
  return app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: INFO,
    servers: [{ url: '/api/v1' }],
    security: [{ bearer: [] }],
  });
}

/** Serves the document of `app` at /openapi.json, without a credential (app.ts PUBLIC_PATHS). */
export function serveDocument(app: OpenAPIHono<AppEnv>): void {
  let document: ReturnType<typeof openApiDocument> | undefined;
  app.openapi(getDocument, (c) => {
    document ??= openApiDocument(app);
    return c.json(document as unknown as Record<string, unknown>, 200);
  });
}
