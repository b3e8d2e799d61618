import { randomBytes } from 'node:crypto';

import { register } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';

import { systemClock } from '../../src/clock.js';
import { createRemoteEmbedder } from '../../src/embed/remote.js';
import { silentLogger } from '../../src/log.js';
import type { SessionRequest } from '../../src/runner/session-runner.js';
import { createApp } from '../../src/web/app.js';
import { fakeClock } from '../helpers/clock.js';
import { cooldownRow } from '../helpers/db.js';
import { offConversations } from '../helpers/gateway.js';
import { parseMetrics, type Scraped } from '../helpers/prometheus.js';
import { runnerHarness, type RunnerHarness } from '../helpers/runner.js';
import { fakeRunner, TOKEN, webHarness, type WebHarness } from '../helpers/web.js';

const request = (prompt: string): SessionRequest => ({
  trigger: 'manual',
  tier: 1,
  prompt,
  parentSessionId: null,
  handoff: null,
  alert: null,
});

let runner: RunnerHarness | undefined;
let web: WebHarness | undefined;
afterEach(async () => {
  await runner?.close();
  web?.close();
  runner = web = undefined;
});

/** The real runner with the fixture CLI, and the dashboard over the same database. */
function runnerWithDashboard() {
  runner = runnerHarness({ WATCHKEEPER_AUTH_TOKEN: TOKEN });
  const queue = fakeRunner();
  let queued: string[] = [];
  queue.status = () => ({ running: null, queued, nextRunAt: null, schedule: null });
  // The gateway stays off: its clock is never read.
  const { gateway, conversations } = offConversations({ ...runner, clock: fakeClock() });
  const app = createApp({
    config: runner.config,
    stores: runner.stores,
    knowledge: runner.knowledge,
    conversations,
    gateway,
    feed: runner.feed,
    runner: queue,
    clock: systemClock,
    log: silentLogger,
    demo: false,
    secret: randomBytes(32),
  });
  const scrape = async (): Promise<Scraped> => {
    const res = await app.request('http://localhost/metrics', {
      headers: { Host: 'localhost', Authorization: `Bearer ${TOKEN}` },
    });
    expect(res.status).toBe(200);
    return parseMetrics(await res.text());
  };
  return { h: runner, scrape, setQueued: (ids: string[]) => (queued = ids) };
}

describe('GET /metrics', () => {
  it('counts a session the runner ran: status and tier, duration, cost, tokens, events, memories', async () => {
    const { h, scrape } = runnerWithDashboard();
    const before = await scrape();
    expect(before.types.get('watchkeeper_sessions')).toBe('gauge');
    expect(before.types.get('watchkeeper_session_duration_seconds')).toBe('histogram');
    expect(before.value('watchkeeper_sessions', { status: 'completed', tier: 1 })).toBe(0);
    expect(before.value('watchkeeper_session_duration_seconds_count', { tier: 1 })).toBe(0);

    expect((await h.runSession(request('ok'))).status).toBe('completed');
    expect((await h.runSession(request('crash'))).status).toBe('failed');
    const after = await scrape();

    expect(after.value('watchkeeper_sessions', { status: 'completed', tier: 1 })).toBe(1);
    expect(after.value('watchkeeper_sessions', { status: 'failed', tier: 1 })).toBe(1);
    expect(after.value('watchkeeper_sessions', { status: 'completed', tier: 2 })).toBe(0);
    // Both ended well within the hour of the top bucket.
    expect(after.value('watchkeeper_session_duration_seconds_count', { tier: 1 })).toBe(2);
    expect(after.value('watchkeeper_session_duration_seconds_bucket', { tier: 1, le: 3600 })).toBe(
      2,
    );
    expect(
      after.value('watchkeeper_session_duration_seconds_bucket', { tier: 1, le: '+Inf' }),
    ).toBe(2);
    expect(after.value('watchkeeper_session_duration_seconds_sum', { tier: 1 })).toBeGreaterThan(0);
    // The fixture's result line: $0.001, one input and one output token (the crash had none).
    expect(after.value('watchkeeper_session_cost_usd', { tier: 1 })).toBeCloseTo(0.001, 9);
    expect(after.value('watchkeeper_session_tokens', { tier: 1, kind: 'input' })).toBe(1);
    expect(after.value('watchkeeper_session_tokens', { tier: 1, kind: 'output' })).toBe(1);
    expect(after.value('watchkeeper_session_tokens', { tier: 1, kind: 'cache_read' })).toBe(0);
    // [EVENT:info:web] and the new memory's info event from the first, [EVENT:critical:nas] from
    // the crash.
    expect(before.value('watchkeeper_events', { level: 'info' })).toBe(0);
    expect(after.value('watchkeeper_events', { level: 'info' })).toBe(2);
    expect(after.value('watchkeeper_events', { level: 'warning' })).toBe(0);
    expect(after.value('watchkeeper_events', { level: 'critical' })).toBe(1);
    expect(after.value('watchkeeper_memories', { state: 'active' })).toBe(1);
    expect(after.value('watchkeeper_memories', { state: 'inactive' })).toBe(0);
  });

  it('exposes the totals as counters (`_total`) that only go up, a prune included', async () => {
    const { h, scrape } = runnerWithDashboard();
    const before = await scrape();
    for (const name of [
      'watchkeeper_sessions_total',
      'watchkeeper_session_cost_usd_total',
      'watchkeeper_session_tokens_total',
      'watchkeeper_events_total',
      'watchkeeper_memory_changes_total',
      'watchkeeper_remediations_total',
      'watchkeeper_guard_refusals_total',
      'watchkeeper_notification_deliveries_total',
    ])
      expect(before.types.get(name), name).toBe('counter');
    // Current values stay gauges.
    expect(before.types.get('watchkeeper_memories')).toBe('gauge');
    expect(before.value('watchkeeper_sessions_total', { status: 'completed', tier: 1 })).toBe(0);
    expect(before.value('watchkeeper_sessions_total', { status: 'running', tier: 1 })).toBe(
      undefined,
    );

    expect((await h.runSession(request('ok'))).status).toBe('completed');
    const ran = await scrape();
    expect(ran.value('watchkeeper_sessions_total', { status: 'completed', tier: 1 })).toBe(1);
    expect(ran.value('watchkeeper_session_cost_usd_total', { tier: 1 })).toBeCloseTo(0.001, 9);
    expect(ran.value('watchkeeper_session_tokens_total', { tier: 1, kind: 'output' })).toBe(1);
    expect(ran.value('watchkeeper_events_total', { level: 'info' })).toBe(2);
    expect(ran.value('watchkeeper_memory_changes_total', { action: 'created' })).toBe(1);

    // A prune of everything deletes the rows: the gauges drop, the counters hold.
    const plan = await h.stores.retention.plan(Date.now() + 1);
    while (await h.stores.retention.step(plan.cutoff, plan.sessions));
    const pruned = await scrape();
    expect(pruned.value('watchkeeper_sessions', { status: 'completed', tier: 1 })).toBe(0);
    expect(pruned.value('watchkeeper_events', { level: 'info' })).toBe(0);
    expect(pruned.value('watchkeeper_sessions_total', { status: 'completed', tier: 1 })).toBe(1);
    expect(pruned.value('watchkeeper_events_total', { level: 'info' })).toBe(2);

    // And count on from there.
    expect((await h.runSession(request('ok'))).status).toBe('completed');
    const again = await scrape();
    expect(again.value('watchkeeper_sessions_total', { status: 'completed', tier: 1 })).toBe(2);
    expect(again.value('watchkeeper_events_total', { level: 'info' })).toBe(3);
    expect(again.value('watchkeeper_memory_changes_total', { action: 'reinforced' })).toBe(1);
  });

  it('reports the queue, guard refusals and notification deliveries as they change', async () => {
    const { h, scrape, setQueued } = runnerWithDashboard();
    const before = await scrape();
    expect(before.value('watchkeeper_queue_depth')).toBe(0);
    expect(before.value('watchkeeper_guard_refusals', { action: 'restart' })).toBe(0);
    expect(before.value('watchkeeper_notification_deliveries', { status: 'failed' })).toBe(0);

    setQueued(['a', 'b']);
    const now = Date.now();
    h.stores.cooldowns.insert(cooldownRow({ createdAt: now }));
    h.stores.cooldowns.recordBlock({
      service: 'jellyfin',
      actionType: 'restart',
      command: 'docker restart jellyfin',
      reason: 'in cooldown',
      sessionId: null,
      createdAt: now,
    });
    const { id } = h.stores.notifications.record(
      {
        kind: 'critical_event',
        level: 'failure',
        service: 'nas',
        title: 'RAID degraded',
        body: 'RAID array degraded',
        dedupKey: 'critical_event/nas/RAID array degraded',
        sessionId: null,
        at: now,
      },
      null,
    );
    h.stores.notifications.fanOut(
      id,
      [{ targetKey: 'ntfy://ntfy.example/alerts', status: 'pending', lastError: null }],
      now,
    );
    const [delivery] = await h.stores.notifications.due(now);
    h.stores.notifications.recordAttempt(delivery!.id, {
      status: 'failed',
      lastError: 'HTTP 500',
      nextAttemptAt: null,
      at: now,
    });

    const after = await scrape();
    expect(after.value('watchkeeper_queue_depth')).toBe(2);
    expect(after.value('watchkeeper_remediations', { action: 'restart' })).toBe(1);
    expect(after.value('watchkeeper_guard_refusals', { action: 'restart' })).toBe(1);
    expect(after.value('watchkeeper_guard_refusals', { action: 'redeployment' })).toBe(0);
    expect(after.value('watchkeeper_notification_deliveries', { status: 'failed' })).toBe(1);
    expect(after.value('watchkeeper_notification_deliveries', { status: 'sent' })).toBe(0);
  });

  it('times searches and embedding batches, and carries the process metrics', async () => {
    const { h, scrape } = runnerWithDashboard();
    const before = await scrape();
    const count = (s: Scraped, name: string, labels: Record<string, string>) =>
      s.value(`${name}_count`, labels) ?? 0;

    await h.knowledge.search.search('cache warm-up after a deploy');
    // An HTTP backend's shared code, over a stand-in for the network: one answer, one failure.
    const embedder = createRemoteEmbedder({
      backend: 'ollama',
      model: 'nomic-embed-text',
      who: 'test embeddings',
      send: (texts) =>
        texts[0]!.includes('fail')
          ? Promise.reject(new Error('connection refused'))
          : Promise.resolve(texts.map(() => [1, 0, 0])),
    });
    await embedder.embedQueries(['jellyfin is slow']);
    await expect(embedder.embedDocuments(['fail this one'])).rejects.toThrow();

    const after = await scrape();
    const search = 'watchkeeper_search_duration_seconds';
    const embed = 'watchkeeper_embedding_duration_seconds';
    expect(
      count(after, search, { mode: 'lexical' }) - count(before, search, { mode: 'lexical' }),
    ).toBe(1);
    const ok = { backend: 'ollama', kind: 'query', outcome: 'ok' };
    const failed = { backend: 'ollama', kind: 'document', outcome: 'error' };
    expect(count(after, embed, ok) - count(before, embed, ok)).toBe(1);
    expect(count(after, embed, failed) - count(before, embed, failed)).toBe(1);
    expect(after.types.get(embed)).toBe('histogram');
    expect(after.value('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(after.types.get('nodejs_eventloop_lag_seconds')).toBe('gauge');
    // All of it in registries of watchkeeper's own: prom-client's global one stays empty.
    expect(register.getMetricsAsArray()).toEqual([]);
  });
});

describe('who may read /metrics (WATCHKEEPER_METRICS)', () => {
  it('refuses a scrape without the bearer token, with a 401 a scraper understands', async () => {
    web = webHarness();
    const none = await web.request('/metrics');
    expect(none.status).toBe(401);
    expect(none.headers.get('WWW-Authenticate')).toMatch(/^Bearer/);
    expect(await none.text()).not.toContain('watchkeeper_sessions');
    const wrong = await web.request('/metrics', {
      headers: { Authorization: 'Bearer not-the-token-at-all' },
    });
    expect(wrong.status).toBe(401);
    const right = await web.request('/metrics', { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(right.status).toBe(200);
    expect(right.headers.get('Content-Type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(parseMetrics(await right.text()).types.get('watchkeeper_sessions')).toBe('gauge');
  });

  it('serves a signed-in browser too', async () => {
    web = webHarness();
    const { cookie } = await web.login();
    expect((await web.request('/metrics', { headers: { Cookie: cookie } })).status).toBe(200);
  });

  it('answers without a credential when public, and not at all when off', async () => {
    web = webHarness({ env: { WATCHKEEPER_METRICS: 'public' } });
    const open = await web.request('/metrics');
    expect(open.status).toBe(200);
    expect(parseMetrics(await open.text()).value('watchkeeper_queue_depth')).toBe(0);
    web.close();

    web = webHarness({ env: { WATCHKEEPER_METRICS: 'off' } });
    const off = await web.request('/metrics', { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(off.status).toBe(404);
  });
});
