/**
 * Each cooldown row has its own Reset: it posts the row's service and action to the override
 * route, with the reason it prompts for (htmx sends it as HX-Prompt); the top form stays.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';

import { HOUR_MS } from '../../src/clock.js';
import { cooldownHorizon, cooldownState } from '../../src/runner/cooldown-policy.js';
import { htmxHeaders, type SignedIn, webHarness, type WebHarness } from '../helpers/web.js';

// The defaults of src/config/guard.ts, which the harness uses.
const LIMITS = {
  restart: { limit: 2, windowMs: 4 * HOUR_MS },
  redeployment: { limit: 1, windowMs: 24 * HOUR_MS },
};

let h: WebHarness;
let auth: SignedIn;
beforeEach(async () => {
  h = webHarness();
  auth = await h.login();
  h.runner.cooldownState = async (now) =>
    cooldownState(await h.stores.cooldowns.since(cooldownHorizon(LIMITS, now)), LIMITS, now);
  for (const ago of [2 * HOUR_MS, HOUR_MS]) {
    h.stores.cooldowns.insert({
      service: 'nas',
      actionType: 'restart',
      success: true,
      source: 'agent',
      command: null,
      message: null,
      tier: 2,
      sessionId: null,
      createdAt: h.clock.now() - ago,
    });
  }
});
afterEach(() => h.close());

const page = async () =>
  (await h.request('/cooldowns', { headers: { Cookie: auth.cookie } })).text();

/** The row's Reset button: the values it posts, decoded from its hx-vals. */
async function rowReset(): Promise<Record<string, string>> {
  const html = await page();
  const button = /<button type="button" class="cooldown-reset"[^>]*>Reset<\/button>/.exec(html);
  expect(button).not.toBeNull();
  expect(button![0]).toContain('hx-post="/cooldowns/overrides"');
  expect(button![0]).toContain('hx-prompt="Reset the restart cooldown of nas: why?');
  const vals = /hx-vals="([^"]*)"/.exec(button![0])![1]!.replaceAll('&quot;', '"');
  return JSON.parse(vals) as Record<string, string>;
}

const post = (vals: Record<string, string>, prompt?: string) =>
  h.request('/cooldowns/overrides', {
    method: 'POST',
    body: new URLSearchParams(vals),
    headers: htmxHeaders(auth, {
      'Content-Type': 'application/x-www-form-urlencoded',
      ...(prompt === undefined ? {} : { 'HX-Prompt': prompt }),
    }),
  });

it('resets that row with the prompted reason, keeping the top form', async () => {
  expect(await page()).toContain('<form id="cooldown-override"');
  const vals = await rowReset();
  expect(vals).toEqual({ service: 'nas', action: 'restart', kind: 'reset' });
  const res = await post(vals, 'disk replaced');
  expect(res.status).toBe(200);
  expect(await res.text()).toContain('role="status">Reset the restart cooldown of nas.');
  const [recorded] = await h.stores.cooldownOverrides.recent(10);
  expect(recorded).toMatchObject({ service: 'nas', actionType: 'restart', kind: 'reset' });
  expect(recorded!.reason).toBe('disk replaced');
});

it('asks again for a reason when none was given, and records nothing', async () => {
  const res = await post(await rowReset(), '  ');
  expect(res.status).toBe(422);
  expect(await res.text()).toContain('role="alert">reason: is required: say why');
  expect(await h.stores.cooldownOverrides.recent(10)).toEqual([]);
});
