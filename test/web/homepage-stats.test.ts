import { afterEach, describe, expect, it } from 'vitest';

import { cooldownRow, seedMemory } from '../helpers/db.js';
import { TOKEN, webHarness, type WebHarness } from '../helpers/web.js';

let h: WebHarness | undefined;
afterEach(() => h?.close());

/** The Claude Ops field names a Homepage "customapi" widget maps (`stats: total_runs`...). */
const GO_STATS_FIELDS = [
  'active_memories',
  'avg_duration_ms',
  'critical_events',
  'escalations',
  'remediations',
  'success_rate',
  'total_cost_usd',
  'total_runs',
].sort();

const PRIVATE_RESPONSE = 'jellyfin admin password was reset on nas-01';

/** Three runs: one completed, one that escalated and then completed, one that failed. */
function seed(web: WebHarness) {
  const t = web.clock.now() - 3_600_000;
  const run = (
    status: 'completed' | 'failed' | 'escalated',
    seconds: number,
    over: { tier?: number; parent?: number; cost?: number } = {},
  ) => {
    const id = web.stores.sessions.start({
      trigger: over.parent ? 'escalation' : 'scheduled',
      tier: over.tier ?? 1,
      parentSessionId: over.parent ?? null,
      startedAt: t,
    });
    web.stores.sessions.finish(id, {
      status,
      endedAt: t + seconds * 1000,
      costUsd: over.cost ?? null,
      response: PRIVATE_RESPONSE,
    });
    return id;
  };
  run('completed', 10, { cost: 0.5 });
  const escalated = run('escalated', 20, { cost: 0.25 });
  run('completed', 60, { tier: 2, parent: escalated, cost: 1 });
  run('failed', 30);
  web.stores.cooldowns.insert(cooldownRow({ createdAt: t }));
  web.stores.events.insert({
    sessionId: null,
    source: 'agent',
    level: 'critical',
    service: 'nas',
    message: 'RAID array degraded',
    createdAt: web.clock.now() - 60_000,
  });
  web.stores.events.insert({
    sessionId: null,
    source: 'agent',
    level: 'critical',
    service: 'nas',
    message: 'two days ago',
    createdAt: web.clock.now() - 2 * 86_400_000,
  });
  seedMemory(web, { service: 'web', category: 'timing', observation: 'Takes 60s to start' });
}

describe('the Homepage stats (WATCHKEEPER_HOMEPAGE_STATS)', () => {
  it('is off by default: /api/v1/stats without a credential is refused as before', async () => {
    h = webHarness();
    seed(h);
    const res = await h.request('/api/v1/stats');
    expect(res.status).toBe(401);
    expect(await res.text()).not.toContain('total_runs');
  });

  it('when on, answers a widget without a credential with the Go sidecar fields, numbers only', async () => {
    h = webHarness({ env: { WATCHKEEPER_HOMEPAGE_STATS: 'true' } });
    seed(h);
    const res = await h.request('/api/v1/stats');
    expect(res.status).toBe(200);
    const text = await res.text();
    const body = JSON.parse(text) as { stats: Record<string, number>; next_run: string | null };
    expect(Object.keys(body).sort()).toEqual(['next_run', 'stats']);
    expect(Object.keys(body.stats).sort()).toEqual(GO_STATS_FIELDS);
    expect(body.stats).toEqual({
      total_runs: 3,
      escalations: 1,
      remediations: 1,
      success_rate: 2 / 3,
      total_cost_usd: 1.75,
      active_memories: 1,
      critical_events: 1,
      avg_duration_ms: 30_000,
    });
    for (const v of Object.values(body.stats)) expect(typeof v).toBe('number');
    expect(text).not.toContain(PRIVATE_RESPONSE);
    expect(text).not.toContain(TOKEN);
  });

  it('still gives a caller with the token the full stats of the API', async () => {
    h = webHarness({ env: { WATCHKEEPER_HOMEPAGE_STATS: 'true' } });
    seed(h);
    const res = await h.request('/api/v1/stats', {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ root_sessions: 3, escalations: 1 });
    expect(body).not.toHaveProperty('stats');
  });

  it('reports 0 rather than nothing before any run', async () => {
    h = webHarness({ env: { WATCHKEEPER_HOMEPAGE_STATS: 'true' } });
    const body = (await (await h.request('/api/v1/stats')).json()) as {
      stats: Record<string, number>;
    };
    expect(body.stats).toMatchObject({ total_runs: 0, success_rate: 0, avg_duration_ms: 0 });
  });
});
