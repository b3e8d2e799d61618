/** /api/v1/services: every service seen, one service, and what the operator says it is. */
import { Hono } from 'hono';

import { serviceJson } from '../../db/index.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { describeService, knownService } from '../service-input.js';
import { jsonBody } from './json-body.js';

export function serviceApi(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const services = deps.knowledge.services;

  app.get('/', (c) => c.json({ services: services.list().map(serviceJson) }));
  app.get('/:name', (c) => c.json(serviceJson(knownService(services, c.req.param('name')))));
  app.put('/:name', async (c) => {
    const name = knownService(services, c.req.param('name')).name;
    describeService(services, name, (await jsonBody(c)).description);
    deps.log.info('service described over the API', { service: name });
    return c.json(serviceJson(services.show(name)));
  });
  return app;
}
