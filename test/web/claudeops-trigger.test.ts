/**
 * The Claude Ops trigger API: `POST /api/v1/sessions/trigger` with the Go body
 * `{prompt, start_tier}`, and `start_tier` on `POST /api/v1/sessions`, reach the same trigger as the
 * dashboard's Run now, under the API's authentication and CSRF rules.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { type SignedIn, TOKEN, type WebHarness, webHarness } from '../helpers/web.js';

let h: WebHarness;
let auth: SignedIn;
beforeEach(async () => {
  h = webHarness();
  auth = await h.login();
});
afterEach(() => h.close());

const postJson = (path: string, body: unknown, headers: Record<string, string>) =>
  h.request(`/api/v1${path}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', ...headers },
  });
const bearer = { Authorization: `Bearer ${TOKEN}` };

describe('POST /api/v1/sessions/trigger', () => {
  it("queues the Go body's prompt at its start_tier, as POST /api/v1/sessions does", async () => {
    const res = await postJson(
      '/sessions/trigger',
      { prompt: 'check nginx', start_tier: 2 },
      bearer,
    );
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ request_id: 'ticket-1', state: 'queued', session_ids: [] });
    expect(h.runner.requests).toEqual([
      { trigger: 'api', startTier: 2, prompt: 'check nginx', alert: null },
    ]);
  });

  it('needs a credential, and a CSRF header with a cookie', async () => {
    const anonymous = await postJson('/sessions/trigger', { prompt: 'x' }, {});
    expect(anonymous.status).toBe(401);
    const noCsrf = await postJson('/sessions/trigger', { prompt: 'x' }, { Cookie: auth.cookie });
    expect(noCsrf.status).toBe(403);
    const withCsrf = await postJson(
      '/sessions/trigger',
      { prompt: 'x' },
      { Cookie: auth.cookie, 'X-CSRF-Token': auth.csrf },
    );
    expect(withCsrf.status).toBe(202);
    expect(h.runner.requests).toHaveLength(1);
  });

  it('refuses a start tier out of range, naming the field', async () => {
    const res = await postJson('/sessions/trigger', { prompt: 'x', start_tier: 5 }, bearer);
    expect(res.status).toBe(422);
    expect(await res.text()).toContain('start_tier');
    expect(h.runner.requests).toEqual([]);
  });
});

describe('start_tier on POST /api/v1/sessions', () => {
  it('is honoured, and refused when it disagrees with tier', async () => {
    expect((await postJson('/sessions', { start_tier: 3 }, bearer)).status).toBe(202);
    expect(h.runner.requests).toEqual([
      { trigger: 'api', startTier: 3, prompt: null, alert: null },
    ]);
    const both = await postJson('/sessions', { tier: 2, start_tier: 3 }, bearer);
    expect(both.status).toBe(422);
    expect(await both.text()).toContain('start_tier: is 3 but tier is 2');
    expect(h.runner.requests).toHaveLength(1);
  });
});
