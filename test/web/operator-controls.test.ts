/**
 * The operator controls over HTTP: cooldown overrides (form and API) with who and why, the run
 * queue with Cancel, event groups with acknowledgement, and the Sessions and Events filters with
 * totals. CSRF and authentication hold on every change.
 */
import { afterEach, describe, expect, it } from 'vitest';

import { HOUR_MS, MINUTE_MS } from '../../src/clock.js';
import type { NewEvent } from '../../src/db/index.js';
import { currentCooldowns } from '../../src/runner/cooldown-now.js';
import { parseTime } from '../../src/web/time-range.js';
import { type SignedIn, TOKEN, webHarness, type WebHarness } from '../helpers/web.js';

// The defaults of src/config/guard.ts, which the harness uses.
const LIMITS = {
  restart: { limit: 2, windowMs: 4 * HOUR_MS },
  redeployment: { limit: 1, windowMs: 24 * HOUR_MS },
};

let h: WebHarness;
let auth: SignedIn;
async function setUp(env: Record<string, string> = {}) {
  h = webHarness({ env });
  auth = await h.login();
  // What the runtime wires in (src/cli/runtime.ts), over the harness's store.
  h.runner.cooldownState = async (now) => currentCooldowns(h.stores, LIMITS, now);
}
afterEach(() => h.close());

const get = (path: string) => h.request(path, { headers: { Cookie: auth.cookie } });
const form = (path: string, fields: Record<string, string>, csrf = true) =>
  h.request(path, {
    method: 'POST',
    body: new URLSearchParams({ ...fields, ...(csrf ? { _csrf: auth.csrf } : {}) }),
    headers: {
      Cookie: auth.cookie,
      Origin: 'http://localhost',
      'Content-Type': 'application/x-www-form-urlencoded',
      'HX-Request': 'true',
    },
  });
const api = (path: string, body?: unknown) =>
  h.request(`/api/v1${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
  });
const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

function restarts(service: string, n: number) {
  for (let i = 0; i < n; i += 1) {
    h.stores.cooldowns.insert({
      service,
      actionType: 'restart',
      success: true,
      source: 'agent',
      command: null,
      message: null,
      tier: 3,
      sessionId: null,
      createdAt: h.clock.now() - (i + 1) * 10 * MINUTE_MS,
    });
  }
}

describe('cooldown overrides', () => {
  it('a reset from the dashboard frees the service and shows who and why in the history', async () => {
    await setUp();
    restarts('jellyfin', 2);
    expect(text(await (await get('/cooldowns')).text())).toContain('in cooldown');
    const res = await form('/cooldowns/overrides', {
      service: 'Jellyfin',
      action: 'restart',
      kind: 'reset',
      reason: 'replaced the failing disk',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('HX-Trigger')).toBe('cooldowns-changed');
    h.clock.advance(1000);
    const page = text(await (await get('/cooldowns')).text());
    expect(page).not.toContain('in cooldown');
    expect(page).toMatch(
      /jellyfin restart reset dashboard \(token sign-in\) replaced the failing disk/,
    );
    // The actions the reset stopped counting are still listed.
    expect(await h.stores.cooldowns.since(0)).toHaveLength(2);
  });

  it('refuses a change without the CSRF token or without a reason, storing nothing', async () => {
    await setUp();
    const noCsrf = await form(
      '/cooldowns/overrides',
      { service: 'jellyfin', kind: 'reset', reason: 'x' },
      false,
    );
    expect(noCsrf.status).toBe(403);
    const noReason = await form('/cooldowns/overrides', { service: 'jellyfin', kind: 'reset' });
    expect(noReason.status).toBe(422);
    expect(await noReason.text()).toContain('reason: is required');
    expect(await h.stores.cooldownOverrides.recent()).toEqual([]);
  });

  it('the API allows N more until a time, recorded as the API token, and names a bad field', async () => {
    await setUp();
    restarts('caddy', 2);
    const bad = await api('/cooldowns/overrides', {
      service: 'caddy',
      kind: 'allow',
      count: 2,
      until: 'tomorrow-ish',
      reason: 'cert renewal',
    });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { error: { field: string } }).error.field).toBe('until');

    const res = await api('/cooldowns/overrides', {
      service: 'caddy',
      action: 'restart',
      kind: 'allow',
      count: 2,
      until: '2h',
      reason: 'cert renewal',
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({
      service: 'caddy',
      kind: 'allow',
      count: 2,
      until: new Date(h.clock.now() + 2 * HOUR_MS).toISOString(),
      actor: 'API token',
    });
    const state = (await (await api('/cooldowns')).json()) as {
      services: { service: string; limit: number; in_cooldown: boolean }[];
    };
    expect(state.services.find((s) => s.service === 'caddy')).toMatchObject({
      limit: 4,
      in_cooldown: false,
    });
    const history = (await (await api('/cooldowns/overrides')).json()) as {
      overrides: { reason: string }[];
    };
    expect(history.overrides.map((o) => o.reason)).toEqual(['cert renewal']);
  });

  it('offers fleet-wide overrides in a fleet: the form, the history and the API say which instance', async () => {
    await setUp();
    expect(await (await get('/cooldowns')).text()).not.toContain('name="fleet"');
    h.close();

    await setUp({ WATCHKEEPER_INSTANCE: 'cluster-a' });
    expect(await (await get('/cooldowns')).text()).toContain('name="fleet"');
    const fields = { service: 'caddy', kind: 'reset', action: 'both' };
    const everywhere = await form('/cooldowns/overrides', {
      ...fields,
      reason: 'all',
      fleet: 'true',
    });
    expect(text(await everywhere.text())).toContain(
      'Reset the restart and redeployment cooldown of caddy on every instance.',
    );
    await form('/cooldowns/overrides', { ...fields, reason: 'this one' });
    expect(text(await (await get('/cooldowns')).text())).toMatch(
      /reset local dashboard \(token sign-in\) this one .* reset every instance dashboard \(token sign-in\) all/,
    );

    const bad = await api('/cooldowns/overrides', { ...fields, reason: 'x', fleet: 'maybe' });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { error: { field: string } }).error.field).toBe('fleet');
    const res = await api('/cooldowns/overrides', { ...fields, reason: 'api', fleet: true });
    expect(await res.json()).toMatchObject({ reason: 'api', fleet: true, instance: null });
    const history = (await (await api('/cooldowns/overrides')).json()) as {
      overrides: { reason: string; fleet: boolean; instance: string | null }[];
    };
    expect(history.overrides.map((o) => [o.reason, o.fleet, o.instance])).toEqual([
      ['api', true, null],
      ['this one', false, 'local'],
      ['all', true, null],
    ]);
  });

  it('records the signed-in user name of a password sign-in', async () => {
    h = webHarness({
      env: { WATCHKEEPER_AUTH_USER: 'alice', WATCHKEEPER_AUTH_PASSWORD: 'a-long-password-1' },
    });
    const res = await h.request('/login', {
      method: 'POST',
      body: new URLSearchParams({ user: 'alice', password: 'a-long-password-1', next: '/' }),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'http://localhost' },
    });
    const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
    const page = await (await h.request('/cooldowns', { headers: { Cookie: cookie } })).text();
    const csrf = /&quot;X-CSRF-Token&quot;:&quot;([^&]+)&quot;/.exec(page)?.[1] ?? '';
    auth = { cookie, csrf };
    expect(
      (await form('/cooldowns/overrides', { service: 'nas', kind: 'reset', reason: 'ok' })).status,
    ).toBe(200);
    expect((await h.stores.cooldownOverrides.recent())[0]!.actor).toBe('alice (dashboard)');
  });
});

describe('the run queue', () => {
  it('lists queued runs with a Cancel button that takes one out, recording who', async () => {
    await setUp();
    const ticket = h.runner.trigger({
      trigger: 'alert',
      startTier: 1,
      prompt: null,
      alert: 'nas: disk 95% full',
    });
    ticket.repeats = 3;
    const panel = await (await get('/sessions/queue')).text();
    expect(text(panel)).toContain('queued alert +3 repeats');
    expect(panel).toContain(`/sessions/queue/${ticket.id}/cancel`);

    const res = await form(`/sessions/queue/${ticket.id}/cancel`, {});
    expect(res.status).toBe(200);
    expect(text(await res.text())).toContain('Cancelled the queued alert run.');
    expect(ticket).toMatchObject({ state: 'cancelled', cancelledBy: 'dashboard (token sign-in)' });

    // Once it is no longer queued, Cancel is refused.
    const again = await api(`/queue/${ticket.id}/cancel`, {});
    expect(again.status).toBe(409);
    expect((await api('/queue/no-such-request/cancel', {})).status).toBe(404);
  });

  it('the API lists the queue and cancels as the API token', async () => {
    await setUp();
    const ticket = h.runner.trigger({ trigger: 'api', startTier: 2, prompt: 'look', alert: null });
    const queue = (await (await api('/queue')).json()) as { queued: { request_id: string }[] };
    expect(queue.queued.map((q) => q.request_id)).toEqual([ticket.id]);
    const res = await api(`/queue/${ticket.id}/cancel`, {});
    expect(await res.json()).toMatchObject({ state: 'cancelled', cancelled_by: 'API token' });
  });
});

function event(over: Partial<NewEvent> = {}): NewEvent {
  return {
    sessionId: null,
    source: 'agent',
    level: 'warning',
    service: 'jellyfin',
    message: '/health took 2.9s',
    createdAt: h.clock.now(),
    ...over,
  };
}

describe('event groups', () => {
  it('shows identical events once with a count; an acknowledgement hides the group', async () => {
    await setUp();
    for (let i = 0; i < 4; i += 1) h.stores.events.insert(event());
    h.stores.events.insert(event({ level: 'critical', message: 'disk full' }));
    const grouped = text(await (await get('/events?view=groups')).text());
    expect(grouped).toContain('/health took 2.9s 4');
    expect(grouped).toContain('1–2 of 2');

    const [group] = h.stores.eventGroups.list({ service: 'jellyfin', level: 'warning' });
    const res = await h.request(`/events/groups/${group!.id}/ack`, {
      method: 'POST',
      headers: {
        Cookie: auth.cookie,
        'X-CSRF-Token': auth.csrf,
        'HX-Request': 'true',
        Origin: 'http://localhost',
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('HX-Trigger')).toBe('events-changed');

    const after = text(await (await get('/events?view=groups')).text());
    expect(after).not.toContain('/health took 2.9s');
    expect(text(await (await get('/events')).text())).toContain('1–1 of 1');
    const shown = text(await (await get('/events?view=groups&acked=show')).text());
    expect(shown).toContain('by dashboard (token sign-in)');

    const apiGroups = (await (await api('/event-groups?acked=show')).json()) as {
      groups: { message: string; acked: boolean; acked_by: string | null; count: number }[];
      total: number;
    };
    expect(apiGroups.total).toBe(2);
    expect(apiGroups.groups.find((g) => g.acked)).toMatchObject({
      message: '/health took 2.9s',
      count: 4,
      acked_by: 'dashboard (token sign-in)',
    });
  });

  it('acknowledges without CSRF only for the API token; a cookie without the token is refused', async () => {
    await setUp();
    const id = h.stores.events.insert(event());
    const groupId = h.stores.eventGroups.list()[0]!.id;
    const refused = await h.request(`/events/groups/${groupId}/ack`, {
      method: 'POST',
      headers: { Cookie: auth.cookie, Origin: 'http://localhost' },
    });
    expect(refused.status).toBe(403);
    expect(h.stores.eventGroups.get(groupId)!.ackedAt).toBeNull();
    const res = await api(`/event-groups/${groupId}/ack`, {});
    expect(await res.json()).toMatchObject({ acked: true, acked_by: 'API token' });
    expect((await api('/event-groups/99999/ack', {})).status).toBe(404);
    const reopened = await api(`/event-groups/${groupId}/reopen`, {});
    expect(await reopened.json()).toMatchObject({ acked: false, acked_by: null });
    expect(id).toBeGreaterThan(0);
  });
});

describe('filters, search and totals', () => {
  it('filters sessions by trigger, tier, status and time, with "1–2 of 2"', async () => {
    await setUp();
    const at = h.clock.now();
    const alertOne = h.stores.sessions.start({
      trigger: 'alert',
      tier: 1,
      startedAt: at - 2 * HOUR_MS,
    });
    h.stores.sessions.start({ trigger: 'manual', tier: 1, startedAt: at - HOUR_MS });
    const alertTwo = h.stores.sessions.start({
      trigger: 'alert',
      tier: 2,
      startedAt: at - 30 * MINUTE_MS,
    });
    h.stores.alertRepeats.set(alertTwo, 4, at);

    const page = await (await get('/sessions?trigger=alert')).text();
    expect(text(page)).toContain('1–2 of 2');
    expect(page).toContain(`id="run-${alertOne}"`);
    expect(page).not.toContain(`id="run-${alertOne + 1}"`);
    expect(text(page)).toContain('+4 repeats');
    // The refresh keeps the filters.
    expect(page).toContain('hx-get="/sessions/rows?trigger=alert&amp;page=1"');

    const recent = await (await get('/sessions?trigger=alert&range=1h')).text();
    expect(recent).toContain(`id="run-${alertTwo}"`);
    expect(recent).not.toContain(`id="run-${alertOne}"`);

    const listed = (await (await api('/sessions?tier=2')).json()) as {
      sessions: { id: number }[];
      total: number;
    };
    expect(listed).toMatchObject({ total: 1, sessions: [{ id: alertTwo }] });
    const bad = await api('/sessions?status=weird');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { field: string } }).error.field).toBe('status');
    expect(text(await (await get(`/sessions/${alertTwo}`)).text())).toContain(
      'the same alert came 4 more times within the window',
    );
    const detail = (await (await api(`/sessions/${alertTwo}`)).json()) as { alert_repeats: number };
    expect(detail.alert_repeats).toBe(4);
  });

  it('searches events by words within a time range, paged with totals', async () => {
    await setUp();
    const at = h.clock.now();
    for (let i = 0; i < 120; i += 1) {
      h.stores.events.insert(
        event({ message: `upstream timed out #${i}`, createdAt: at - i * 1000 }),
      );
    }
    h.stores.events.insert(
      event({ message: 'upstream timed out long ago', createdAt: at - 3 * 86_400_000 }),
    );
    h.stores.events.insert(event({ message: 'all good' }));

    const first = text(await (await get('/events?q=upstream+time&range=24h')).text());
    expect(first).toContain('1–100 of 120');
    expect(first).not.toContain('long ago');
    const second = text(await (await get('/events?q=upstream+time&range=24h&page=2')).text());
    expect(second).toContain('101–120 of 120');
    const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19);
    const old = text(
      await (
        await get(`/events?q=upstream&from=${iso(at - 4 * 86_400_000)}&to=${iso(at - 86_400_000)}`)
      ).text(),
    );
    expect(old).toContain('upstream timed out long ago');
    expect(old).toContain('1–1 of 1');

    const body = (await (await api('/events?q=upstream&range=24h&limit=5')).json()) as {
      events: unknown[];
      total: number;
    };
    expect(body.events).toHaveLength(5);
    expect(body.total).toBe(120);
    const bad = await api('/events?from=yesterday');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { field: string } }).error.field).toBe('from');
  });
});

describe('time ranges in the operator time zone', () => {
  it('reads a from/to without a zone in WATCHKEEPER_TZ on the page, and in UTC in the API', async () => {
    expect(parseTime('2026-01-01T12:00', 'Europe/Berlin')).toBe(Date.UTC(2026, 0, 1, 11));
    expect(parseTime('2026-07-01T12:00', 'Europe/Berlin')).toBe(Date.UTC(2026, 6, 1, 10));
    expect(parseTime('2026-07-01T12:00:00+02:00', 'UTC')).toBe(Date.UTC(2026, 6, 1, 10));
    expect(parseTime('yesterday')).toBeNull();

    await setUp({ WATCHKEEPER_TZ: 'Europe/Berlin' });
    // The harness's clock stands at 2026-01-01 00:00 UTC, 01:00 in Berlin.
    h.stores.events.insert(
      event({ message: 'at half past midnight UTC', createdAt: h.clock.now() + 30 * MINUTE_MS }),
    );
    const page = text(await (await get('/events?from=2026-01-01T01:15')).text());
    expect(page).toContain('at half past midnight UTC');
    expect(page).toContain('From (Europe/Berlin)');
    const body = (await (await api('/events?from=2026-01-01T01:15')).json()) as { total: number };
    expect(body.total).toBe(0);
  });
});
