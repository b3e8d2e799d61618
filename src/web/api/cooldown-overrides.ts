/**
 * /api/v1/cooldowns/overrides: an operator's resets and allowances of a service's cooldown
 * (`POST`, with who from the credential and why from the body), and their history (`GET`).
 */
import type { OpenAPIHono } from '@hono/zod-openapi';

import { actorOf } from '../actor.js';
import type { AppEnv } from '../context.js';
import { parseCooldownOverride } from '../cooldown-override-input.js';
import type { WebDeps } from '../deps.js';
import { overrideJson } from '../operator-json.js';
import {
  apiRouter,
  common,
  createRoute,
  jsonObjectBody,
  jsonRequest,
  ok,
  time,
  withBody,
  err,
  z,
} from './openapi-app.js';

const OverrideSchema = z
  .object({
    id: z.number().int(),
    service: z.string(),
    action: z.enum(['restart', 'redeployment', 'both']),
    kind: z.enum(['reset', 'allow']),
    count: z.number().int().nullable(),
    until: time,
    actor: z.string(),
    reason: z.string(),
    created_at: time,
    fleet: z.boolean().openapi({ description: 'applies to every instance of the fleet' }),
    instance: z.string().nullable().openapi({
      description: 'the instance it applies to; null when fleet-wide',
    }),
  })
  .openapi('CooldownOverride');

// Checked by parseCooldownOverride, which names the field; the schema documents it.
const OverrideBody = z
  .object({
    service: z.string(),
    action: z.enum(['restart', 'redeployment', 'both']).optional(),
    kind: z.enum(['reset', 'allow']),
    count: z.union([z.number().int(), z.string()]).optional().openapi({
      description: 'allow: how many more actions (1-100)',
    }),
    until: z.string().optional().openapi({
      description: 'allow: a duration from now (2h) or a time, within 7 days',
    }),
    reason: z.string(),
    fleet: z
      .union([z.boolean(), z.string()])
      .optional()
      .openapi({
        description:
          'true: every instance of the fleet; by default only the instance it is made on ' +
          '(on a service whose limits the fleet shares, always every instance)',
      }),
  })
  .openapi('CooldownOverrideInput');

const listOverrides = createRoute({
  method: 'get',
  path: '/overrides',
  summary: "Operators' cooldown resets and allowances, newest first",
  responses: { 200: ok('history', z.object({ overrides: z.array(OverrideSchema) })), ...common },
});

const addOverride = createRoute({
  method: 'post',
  path: '/overrides',
  summary: "Reset a service's cooldown, or allow N more actions until a time",
  middleware: [jsonObjectBody] as const,
  request: { body: jsonRequest(OverrideBody) },
  responses: {
    201: ok('recorded', OverrideSchema),
    422: err('a bad field, named'),
    ...withBody,
  },
});

export function cooldownOverrideApi(deps: WebDeps): OpenAPIHono<AppEnv> {
  const app = apiRouter({ bodyError: 'invalid_input' });

  app.openapi(listOverrides, async (c) => {
    const overrides = await deps.stores.cooldownOverrides.recent();
    return c.json({ overrides: overrides.map(overrideJson) }, 200);
  });

  app.openapi(addOverride, async (c) => {
    const input = parseCooldownOverride(c.req.valid('json'), deps.clock.now());
    const actor = actorOf(c);
    const id = await deps.stores.cooldownOverrides.insert({ ...input, actor });
    deps.log.info('cooldown override', {
      service: input.service,
      kind: input.kind,
      fleet: input.fleetWide,
      by: actor,
    });
    const row = (await deps.stores.cooldownOverrides.get(id))!;
    return c.json(overrideJson(row), 201);
  });

  return app;
}
