/**
 * The Services page: every service an event, memory or cooldown names, what it is (and who said
 * so: the operator, the agent or the built-in catalog), its counts; one service's page with the
 * description in an edit box. The description is indexed with each of its memories, so what the
 * operator writes here changes what a search by meaning finds.
 */
import { type Context, Hono } from 'hono';

import { isAppError } from '../../errors.js';
import { MAX_DESCRIPTION_LENGTH, type ServiceDetail } from '../../knowledge/index.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { page } from '../render.js';
import { HEALTH_BADGE } from '../session-record.js';
import { describeService, knownService } from '../service-input.js';

export function serviceRoutes(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const services = deps.knowledge.services;

  const detailPage = async (
    c: Context<AppEnv>,
    s: ServiceDetail,
    extra: { error?: string; value?: string; saved?: boolean } = {},
    status = 200,
  ) =>
    page(
      c,
      'pages/service',
      { title: `Service ${s.name}`, nav: 'services' },
      {
        s,
        maxLength: MAX_DESCRIPTION_LENGTH,
        error: extra.error ?? null,
        value: extra.value ?? s.description ?? s.catalog?.description ?? '',
        saved: extra.saved ?? false,
        checks: await deps.stores.sessionRecords.healthOf(s.name, 10),
        healthBadge: HEALTH_BADGE,
      },
      status,
    );

  app.get('/services', async (c) => {
    const [list, health] = await Promise.all([
      services.list(),
      deps.stores.sessionRecords.latestHealth(),
    ]);
    return page(
      c,
      'pages/services',
      { title: 'Services', nav: 'services' },
      {
        services: list,
        // The latest health a session found for each service, with when and which session.
        health: new Map(health.map((h) => [h.service, h])),
        healthBadge: HEALTH_BADGE,
      },
    );
  });

  app.get('/services/:name', async (c) =>
    detailPage(c, await knownService(services, c.req.param('name')), {
      saved: c.req.query('saved') === '1',
    }),
  );

  app.post('/services/:name', async (c) => {
    const s = await knownService(services, c.req.param('name'));
    const form = await c.req.parseBody();
    try {
      await describeService(services, s.name, form.description);
    } catch (err) {
      if (!isAppError(err) || err.code !== 'usage') throw err;
      // The page comes back with the operator's text and the reason; nothing was stored.
      const value = typeof form.description === 'string' ? form.description : '';
      return detailPage(c, s, { error: err.message, value }, 400);
    }
    deps.log.info('service described from the dashboard', { service: s.name });
    return c.redirect(`/services/${encodeURIComponent(s.name)}?saved=1`, 303);
  });

  return app;
}
