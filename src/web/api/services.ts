/** /api/v1/services: every service seen, one service, and what the operator says it is. */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';

import { serviceJson } from '../../db/index.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { describeService, knownService } from '../service-input.js';
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
import { ServiceSchema } from './openapi-schemas.js';

// Any text reaches the route: a name no service could have is a 404 like an unknown one.
const NameParams = z.object({
  name: z.string().openapi({ example: 'nginx', description: 'letters, digits, ".", "_", "-"' }),
});

const listServices = createRoute({
  method: 'get',
  path: '/',
  summary: 'Every service an event, memory or cooldown names, with what it is and counts',
  responses: { 200: ok('services', z.object({ services: z.array(ServiceSchema) })), ...common },
});

const getService = createRoute({
  method: 'get',
  path: '/{name}',
  summary: 'One service',
  request: { params: NameParams },
  responses: {
    200: ok('the service', ServiceSchema),
    404: err('nothing names this service'),
    ...common,
  },
});

const describeRoute = (knownFirst: MiddlewareHandler<AppEnv>) =>
  createRoute({
    method: 'put',
    path: '/{name}',
    summary:
      "Say what the service is (the operator's text wins over the agent's and the catalog's)",
    description:
      "An empty description removes the operator's text and restores the catalog's. The description is indexed with every memory of the service.",
    // An unknown service is a 404 whatever the body is.
    middleware: [knownFirst, jsonObjectBody] as const,
    request: {
      params: NameParams,
      body: jsonRequest(
        z.object({
          description: z
            .string({ error: "must be text (empty restores the catalog's)" })
            .openapi({ maxLength: 500 }),
        }),
      ),
    },
    responses: {
      200: ok('the service after the change', ServiceSchema),
      404: err('nothing names this service'),
      ...withBody,
      400: err('not a JSON object, or a bad description (too long, control characters), named'),
    },
  });

export function serviceApi(deps: WebDeps): OpenAPIHono<AppEnv> {
  const app = apiRouter();
  const services = deps.knowledge.services;
  const describe = describeRoute(async (c, next) => {
    await knownService(services, c.req.param('name') ?? '');
    await next();
  });

  app.openapi(listServices, async (c) =>
    c.json({ services: (await services.list()).map(serviceJson) }, 200),
  );
  app.openapi(getService, async (c) =>
    c.json(serviceJson(await knownService(services, c.req.valid('param').name)), 200),
  );
  app.openapi(describe, async (c) => {
    const name = (await knownService(services, c.req.valid('param').name)).name;
    await describeService(services, name, c.req.valid('json').description);
    deps.log.info('service described over the API', { service: name });
    return c.json(serviceJson(await services.show(name)), 200);
  });
  return app;
}
