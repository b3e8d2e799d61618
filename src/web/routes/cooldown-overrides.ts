/**
 * The Cooldowns page's operator form: reset a service's cooldown or allow N more actions until
 * a time, recorded with who (the signed-in operator) and why; the history shows on the page.
 * Each cooldown row's Reset posts here too, with the reason it prompted for.
 */
import { Hono } from 'hono';

import { isAppError } from '../../errors.js';
import { actorOf } from '../actor.js';
import type { AppEnv } from '../context.js';
import { parseCooldownOverride } from '../cooldown-override-input.js';
import type { WebDeps } from '../deps.js';
import { isHtmx, partial } from '../render.js';

export function cooldownOverrideForm(
  extra: { error?: string | null; values?: Record<string, unknown>; done?: string | null } = {},
) {
  return { error: null, values: {}, done: null, ...extra };
}

export function cooldownOverrideRoutes(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.post('/cooldowns/overrides', async (c) => {
    const form: Record<string, unknown> = { ...(await c.req.parseBody()) };
    // A row's Reset asks for the reason with hx-prompt, which htmx sends as this header.
    const prompted = c.req.header('HX-Prompt');
    if (form.reason === undefined && prompted !== undefined) form.reason = prompted;
    let input;
    try {
      input = parseCooldownOverride(form, deps.clock.now());
    } catch (err) {
      if (!isAppError(err) || !isHtmx(c)) throw err;
      return partial(
        c,
        'partials/cooldown-override-form',
        cooldownOverrideForm({ error: err.message, values: form }),
        422,
      );
    }
    const actor = actorOf(c);
    await deps.stores.cooldownOverrides.insert({ ...input, actor });
    deps.log.info('cooldown override', {
      service: input.service,
      kind: input.kind,
      fleet: input.fleetWide,
      by: actor,
    });
    if (!isHtmx(c)) return c.redirect('/cooldowns', 303);
    c.header('HX-Trigger', 'cooldowns-changed');
    const scope = input.fleetWide ? ' on every instance' : '';
    const what =
      input.kind === 'reset'
        ? `Reset the ${input.actionType ?? 'restart and redeployment'} cooldown of ${input.service}${scope}.`
        : `Allowed ${input.extra} more ${input.actionType ?? 'restart/redeployment'}(s) of ${input.service}${scope}.`;
    return partial(c, 'partials/cooldown-override-form', cooldownOverrideForm({ done: what }));
  });

  return app;
}
