import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { HOUR_MS, MINUTE_MS } from '../../src/clock.js';
import type { NewCooldownAction } from '../../src/db/index.js';
import { cooldownHorizon, cooldownState } from '../../src/runner/cooldown-policy.js';
import { TOKEN, webHarness, type WebHarness } from '../helpers/web.js';

// The defaults of src/config/guard.ts, which the harness uses.
const LIMITS = {
  restart: { limit: 2, windowMs: 4 * HOUR_MS },
  redeployment: { limit: 1, windowMs: 24 * HOUR_MS },
};

let h: WebHarness;
let cookie: string;
beforeEach(async () => {
  h = webHarness();
  ({ cookie } = await h.login());
  // What the runtime wires in (src/cli/runtime.ts), over the harness's store.
  h.runner.cooldownState = async (now) =>
    cooldownState(await h.stores.cooldowns.since(cooldownHorizon(LIMITS, now)), LIMITS, now);
});
afterEach(() => h.close());

const get = (path: string, headers: Record<string, string> = {}) =>
  h.request(path, { headers: { Cookie: cookie, ...headers } });

function action(a: Partial<NewCooldownAction> & { service: string; ago: number }): number {
  const { ago, ...rest } = a;
  return h.stores.cooldowns.insert({
    actionType: 'restart',
    success: true,
    source: 'agent',
    command: null,
    message: null,
    tier: 2,
    sessionId: null,
    createdAt: h.clock.now() - ago,
    ...rest,
  });
}

/** nas: 2 of 2 restarts (in cooldown); web: 1 of 1 redeployment; db: 1 of 2 restarts. */
function fixture() {
  const s = h.stores.sessions.start({ trigger: 'manual', tier: 2, startedAt: h.clock.now() });
  action({ service: 'nas', ago: 25 * HOUR_MS, message: 'ancient restart' });
  action({ service: 'nas', ago: 3 * HOUR_MS, message: 'came back' });
  action({
    service: 'nas',
    ago: HOUR_MS,
    source: 'hook',
    success: null,
    command: 'docker restart nas <x>',
    sessionId: s,
  });
  action({ service: 'web', ago: 2 * HOUR_MS, actionType: 'redeployment', message: 'deployed v2' });
  action({ service: 'db', ago: 30 * MINUTE_MS, success: false, message: 'still down' });
  h.stores.cooldowns.recordBlock({
    service: 'nas',
    actionType: 'restart',
    command: 'systemctl restart nas',
    reason: 'nas is in restart cooldown',
    sessionId: s,
    createdAt: h.clock.now() - 10 * MINUTE_MS,
  });
  h.stores.cooldowns.recordBlock({
    service: 'nas',
    actionType: 'restart',
    command: 'old blocked command',
    reason: 'old',
    sessionId: null,
    createdAt: h.clock.now() - 25 * HOUR_MS,
  });
  return { s };
}

/** The body rows of the table with this id, each as its cells' text. */
function rows(html: string, id: string): string[][] {
  const table = html.slice(html.indexOf(`<table id="${id}">`));
  const body = table.slice(table.indexOf('<tbody>'), table.indexOf('</tbody>'));
  return [...body.matchAll(/<tr[^>]*>(.*?)<\/tr>/gs)].map((r) =>
    [...r[1]!.matchAll(/<td[^>]*>(.*?)<\/td>/gs)].map((c) =>
      c[1]!
        .replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    ),
  );
}

describe('GET /cooldowns', () => {
  it('shows the configured limits', async () => {
    const html = await (await get('/cooldowns')).text();
    expect(html.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ')).toContain(
      'at most 2 restarts in 4 h and 1 redeployment in 24 h.',
    );
    expect(rows(html, 'cooldown-state')).toEqual([
      ['No restart or redeployment inside the windows: every service is available.'],
    ]);
  });

  it('shows per service and action the count, the state and when a slot frees', async () => {
    fixture();
    const html = await (await get('/cooldowns')).text();
    expect(rows(html, 'cooldown-state')).toEqual([
      [
        'db',
        'restart',
        '1 / 2',
        '4 h',
        'available 1 left',
        '2025-12-31 23:30:00 UTC (30m ago)',
        'Reset',
      ],
      [
        'nas',
        'restart',
        '2 / 2',
        '4 h',
        'in cooldown free at 2026-01-01 01:00:00 UTC',
        '2025-12-31 23:00:00 UTC (1h ago)',
        'Reset',
      ],
      [
        'web',
        'redeployment',
        '1 / 1',
        '24 h',
        'in cooldown free at 2026-01-01 22:00:00 UTC',
        '2025-12-31 22:00:00 UTC (2h ago)',
        'Reset',
      ],
    ]);
    expect(html.match(/<tr class="critical">/g)).toHaveLength(2);
  });

  it('lists the recent actions with source and outcome, and the blocked attempts', async () => {
    // A lone sidecar (the instance `local`) shows no instance column.
    const { s } = fixture();
    const html = await (await get('/cooldowns')).text();
    expect(rows(html, 'cooldown-actions')).toEqual([
      ['2025-12-31 23:30:00 UTC', 'db', 'restart', 'agent', 'failure', '2', '-', 'still down'],
      [
        '2025-12-31 23:00:00 UTC',
        'nas',
        'restart',
        'hook',
        'unknown',
        '2',
        `#${s}`,
        'docker restart nas &lt;x&gt;',
      ],
      [
        '2025-12-31 22:00:00 UTC',
        'web',
        'redeployment',
        'agent',
        'success',
        '2',
        '-',
        'deployed v2',
      ],
      ['2025-12-31 21:00:00 UTC', 'nas', 'restart', 'agent', 'success', '2', '-', 'came back'],
    ]);
    expect(rows(html, 'cooldown-blocks')).toEqual([
      [
        '2025-12-31 23:50:00 UTC',
        'nas',
        'restart',
        'systemctl restart nas',
        'nas is in restart cooldown',
        `#${s}`,
      ],
    ]);
    expect(html).not.toContain('ancient restart');
    expect(html).not.toContain('old blocked command');
    expect(html).not.toContain('<x>');
  });

  it('answers htmx with the body partial, refreshed every 10 s', async () => {
    fixture();
    const html = await (await get('/cooldowns', { 'HX-Request': 'true' })).text();
    expect(html).not.toContain('<html');
    expect(html).toMatch(
      /^<div id="cooldown-body" data-refresh hx-get="\/cooldowns" hx-trigger="every 10s, cooldowns-changed from:body"/,
    );
    expect(rows(html, 'cooldown-state')).toHaveLength(3);
  });
});

describe('GET /api/v1/cooldowns', () => {
  it('returns limits, services, recent actions and blocked attempts with ISO times', async () => {
    const { s } = fixture();
    const res = await h.request('/api/v1/cooldowns', {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      recent_actions: Record<string, unknown>[];
      [k: string]: unknown;
    };
    expect(body.limits).toEqual({
      restart: { limit: 2, window_ms: 4 * HOUR_MS },
      redeployment: { limit: 1, window_ms: 24 * HOUR_MS },
    });
    expect(body.since).toBe('2025-12-31T00:00:00.000Z');
    expect(body.services).toContainEqual({
      service: 'nas',
      action: 'restart',
      count: 2,
      limit: 2,
      window_ms: 4 * HOUR_MS,
      in_cooldown: true,
      last_at: '2025-12-31T23:00:00.000Z',
      free_at: '2026-01-01T01:00:00.000Z',
    });
    expect(body.services).toContainEqual(
      expect.objectContaining({ service: 'db', in_cooldown: false, free_at: null }),
    );
    expect(body.recent_actions).toHaveLength(4);
    expect(body.recent_actions[1]).toEqual({
      id: expect.any(Number),
      service: 'nas',
      action_type: 'restart',
      success: null,
      source: 'hook',
      command: 'docker restart nas <x>',
      message: null,
      tier: 2,
      session_id: s,
      created_at: '2025-12-31T23:00:00.000Z',
      instance: 'local',
    });
    expect(body.blocked).toEqual([
      {
        id: expect.any(Number),
        service: 'nas',
        action_type: 'restart',
        command: 'systemctl restart nas',
        reason: 'nas is in restart cooldown',
        session_id: s,
        created_at: '2025-12-31T23:50:00.000Z',
      },
    ]);
  });

  it('needs a credential', async () => {
    expect((await h.request('/api/v1/cooldowns')).status).toBe(401);
  });
});
