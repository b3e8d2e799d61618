import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../src/clock.js';
import type { SessionStatus } from '../../src/db/index.js';
import { TOKEN, webHarness, type WebHarness } from '../helpers/web.js';
import { seedMemory } from '../helpers/db.js';

let h: WebHarness;
let cookie: string;
beforeEach(async () => {
  h = webHarness();
  ({ cookie } = await h.login());
});
afterEach(() => h.close());

const get = (path: string, headers: Record<string, string> = {}) =>
  h.request(path, { headers: { Cookie: cookie, ...headers } });
const html = async (path: string, headers: Record<string, string> = {}) =>
  (await get(path, headers)).text();

/** The value and sub line of the stat card with this label, without tags. */
function card(page: string, label: string): { value: string; sub: string } {
  const at = page.indexOf(`<div class="label">${label}</div>`);
  expect(at, `card ${label}`).toBeGreaterThan(-1);
  const [, value, sub] =
    /<div class="value"[^>]*>(.*?)<\/div>\s*<div class="sub">(.*?)<\/div>/s.exec(page.slice(at))!;
  const text = (s: string) =>
    s
      .replace(/<[^>]+>/g, '')
      .replace(/\s+/g, ' ')
      .trim();
  return { value: text(value!), sub: text(sub!) };
}

function session(
  status: SessionStatus,
  startedAt: number,
  opts: { parent?: number; cost?: number; response?: string } = {},
): number {
  const id = h.stores.sessions.start({
    trigger: opts.parent === undefined ? 'scheduled' : 'escalation',
    tier: opts.parent === undefined ? 1 : 2,
    parentSessionId: opts.parent ?? null,
    startedAt,
  });
  if (status !== 'running') {
    h.stores.sessions.finish(id, {
      status,
      endedAt: startedAt + MINUTE_MS,
      costUsd: opts.cost ?? null,
      response: opts.response ?? null,
    });
  }
  return id;
}

function critical(createdAt: number, message = 'disk full') {
  return h.stores.events.insert({
    sessionId: null,
    source: 'agent',
    level: 'critical',
    service: 'nas',
    message,
    createdAt,
  });
}

const LONG = `Restarted <b>nas</b> after the disk check.\n[EVENT:info:nas] Restarted\n\n\n[MEMORY:timing:nas] Takes 60s\n${'All services answered their health checks. '.repeat(12)}`;

/** Three runs (one escalated to tier 2), three memories, two critical events around the 24 h edge. */
async function fixture() {
  const now = h.clock.now();
  const failed = session('failed', now - 3 * HOUR_MS);
  const done = session('completed', now - 2 * HOUR_MS, { cost: 0.1 });
  const root = session('escalated', now - HOUR_MS, { cost: 0.2 });
  const child = session('completed', now - HOUR_MS + MINUTE_MS, {
    parent: root,
    cost: 0.3,
    response: LONG,
  });
  const [m1] = ['slow start', 'needs vpn', 'flaky dns'].map(
    (o, i) => seedMemory(h, { service: `svc${i}`, category: 'timing', observation: o }).id,
  );
  await h.keeper.deactivate([m1!]);
  critical(now - DAY_MS); // exactly 24 h ago: counted
  critical(now - DAY_MS - 1); // just before: not counted
  return { failed, done, root, child, m1: m1! };
}

describe('GET / (overview)', () => {
  it('shows the stat cards for a known fixture', async () => {
    await fixture();
    const page = await html('/');
    expect(card(page, 'Runs (chains)')).toEqual({
      value: '3',
      sub: '4 sessions in all · 67% resolved (2 of 3 finished runs)',
    });
    expect(page).toContain('title="Runs: chains, each a session started by the schedule');
    expect(card(page, 'Outcome (chains)')).toEqual({ value: '2 resolved', sub: '1 failed' });
    expect(card(page, 'Escalations (sessions)').value).toBe('1');
    expect(card(page, 'Total cost').value).toBe('$0.6000');
    expect(card(page, 'Active memories')).toEqual({ value: '2', sub: '1 inactive' });
    expect(card(page, 'Critical events (24 h)')).toEqual({
      value: '1',
      sub: 'since 2025-12-31 00:00:00 UTC',
    });
    expect(card(page, 'Next scheduled run').value).toBe('off');
    expect(card(page, 'Running now')).toEqual({ value: 'idle', sub: 'nothing queued' });
  });

  it('counts a run that exited cleanly but reported a critical event as needing a human', async () => {
    const { done } = await fixture();
    h.stores.events.insert({
      sessionId: done,
      source: 'agent',
      level: 'critical',
      service: 'nas',
      message: 'array degraded, one disk left',
      createdAt: h.clock.now() - HOUR_MS,
    });
    const page = await html('/');
    // The exit code still says success; the outcome does not.
    expect(card(page, 'Runs (chains)').sub).toContain('33% resolved (1 of 3 finished runs)');
    expect(card(page, 'Outcome (chains)')).toEqual({
      value: '1 resolved',
      sub: '1 needs a human · 1 failed',
    });
    // The page leads with it, and with why.
    expect(page.indexOf('id="needs-human"')).toBeLessThan(page.indexOf('id="outcome-card"'));
    expect(page).toMatch(
      /<span class="badge outcome needs_human">needs a human<\/span> <span class="outcome-why">critical event left<\/span>/,
    );
  });

  it('counts critical events from exactly 24 h before the injected clock', async () => {
    await fixture();
    expect(card(await html('/'), 'Critical events (24 h)').value).toBe('1');
    h.clock.advance(1);
    expect(card(await html('/'), 'Critical events (24 h)').value).toBe('0');
    critical(h.clock.now());
    expect(card(await html('/'), 'Critical events (24 h)').value).toBe('1');
  });

  it('shows the next run and the running session from the runner', async () => {
    const now = h.clock.now();
    h.runner.status = () => ({
      running: { id: 'ticket-1', sessionIds: [4, 5] },
      queued: ['ticket-2'],
      nextRunAt: now + 30 * MINUTE_MS,
      schedule: '*/30 * * * *',
    });
    const page = await html('/');
    expect(card(page, 'Next scheduled run')).toEqual({
      value: '00:30:00 UTC',
      sub: 'in 30 min 0 s, on 2026-01-01',
    });
    expect(card(page, 'Running now')).toEqual({ value: 'running', sub: 'session #5 · 1 queued' });
    expect(page).toContain('<a href="/sessions/5">session #5</a>');
  });

  it('shows the last run: its outcome, tier reached, and the clipped, escaped response', async () => {
    const { root, child } = await fixture();
    const page = await html('/');
    const last = page.slice(page.indexOf('id="last-run"'));
    expect(last).toContain(`<a href="/sessions/${root}">session #${root}</a>`);
    expect(last).toContain('<span class="badge completed">completed</span>');
    expect(last).toMatch(/<dt>Tier reached<\/dt>\s*<dd>2 /);
    expect(last).toContain(`<a href="/sessions/${child}">Full response &rarr;</a>`);
    expect(last).toContain('Restarted &lt;b&gt;nas&lt;/b&gt;');
    const clipped = /<p class="response lines">(.*?)<\/p>/s.exec(last)![1]!;
    expect(clipped.endsWith('…')).toBe(true);
    // Marker lines stay lines (blank runs fold into one).
    expect(clipped).toContain(
      'check.\n[EVENT:info:nas] Restarted\n\n[MEMORY:timing:nas] Takes 60s\n',
    );
    expect(clipped.replace(/&lt;|&gt;/g, '_').length).toBe(400);
  });

  it('says so when nothing ran yet', async () => {
    const page = await html('/');
    expect(page).toContain('No run yet.');
    expect(card(page, 'Outcome (chains)').sub).toBe('no finished run yet');
    expect(page).toContain('Nothing has happened yet.');
  });

  it('merges sessions, events and memory changes in the feed, newest first', async () => {
    const { failed, root, child, m1 } = await fixture();
    const page = await html('/');
    const feed = page.slice(page.indexOf('id="overview-activity"'));
    const order = [
      `/memories#memory-${m1}">Memory #${m1}</a>`, // deactivated at "now"
      `<a href="/sessions/${child}">Session #${child}</a>`,
      `<a href="/sessions/${root}">Session #${root}</a>`,
      `<a href="/sessions/${failed}">Session #${failed}</a>`,
      'disk full',
    ];
    const positions = order.map((s) => feed.indexOf(s));
    expect(positions.every((p) => p > -1)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(feed).toContain('memory deactivated');
    expect(feed).toContain(`from #${root}`);
  });

  it('answers htmx with the stats partial, refreshed every 10 s', async () => {
    await fixture();
    const part = await html('/', { 'HX-Request': 'true' });
    expect(part).not.toContain('<html');
    expect(part).toMatch(
      /^\s*<div id="overview-stats" data-refresh hx-get="\/" hx-trigger="every 10s"/,
    );
    expect(card(part, 'Runs (chains)').value).toBe('3');
    expect(part).not.toContain('overview-activity');
  });

  it('serves the activity feed as its own partial', async () => {
    await fixture();
    const res = await get('/overview/activity', { 'HX-Request': 'true' });
    expect(res.status).toBe(200);
    const part = await res.text();
    expect(part).toMatch(
      /^<div id="overview-activity" data-refresh hx-get="\/overview\/activity" hx-trigger="every 10s"/,
    );
    // 4 sessions, 3 memories created and 1 deactivated, and the same critical event twice: one line
    expect(part.match(/<li /g)).toHaveLength(9);
    expect(part).toContain('×2, ');
  });
});

describe('GET /api/v1/stats', () => {
  it('returns the overview numbers in snake_case with ISO times', async () => {
    const { root, child } = await fixture();
    const now = h.clock.now();
    h.runner.status = () => ({
      running: null,
      queued: [],
      nextRunAt: now + HOUR_MS,
      schedule: '0 * * * *',
    });
    const res = await h.request('/api/v1/stats', {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({
      generated_at: '2026-01-01T00:00:00.000Z',
      root_sessions: 3,
      finished_runs: 3,
      succeeded_runs: 2,
      success_rate: 2 / 3,
      resolved_runs: 2,
      needs_human_runs: 1,
      outcomes: {
        running: 0,
        resolved: 2,
        needs_human: 0,
        failed: 1,
        interrupted: 0,
        shut_down: 0,
        stopped: 0,
      },
      resolved_rate: 2 / 3,
      escalations: 1,
      total_cost_usd: expect.closeTo(0.6, 10),
      active_memories: 2,
      inactive_memories: 1,
      critical_events_24h: 1,
      critical_events_since: '2025-12-31T00:00:00.000Z',
      running: false,
      running_session_ids: [],
      queued: 0,
      schedule: '0 * * * *',
      next_run_at: '2026-01-01T01:00:00.000Z',
      last_run: {
        session_id: root,
        last_session_id: child,
        status: 'completed',
        outcome: 'resolved',
        outcome_reasons: [],
        trigger: 'scheduled',
        tier_reached: 2,
        sessions: 2,
        started_at: '2025-12-31T23:00:00.000Z',
        ended_at: '2025-12-31T23:02:00.000Z',
        cost_usd: expect.closeTo(0.5, 10),
        simulated: false,
      },
    });
  });

  it('counts outcomes apart from exit codes: a clean exit that reported a critical event needs a human', async () => {
    const { done } = await fixture();
    h.stores.events.insert({
      sessionId: done,
      source: 'agent',
      level: 'critical',
      service: 'nas',
      message: 'array degraded, one disk left',
      createdAt: h.clock.now() - HOUR_MS,
    });
    const res = await h.request('/api/v1/stats', {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(await res.json()).toMatchObject({
      finished_runs: 3,
      succeeded_runs: 2,
      success_rate: 2 / 3,
      resolved_runs: 1,
      needs_human_runs: 2,
      resolved_rate: 1 / 3,
    });
  });

  it('says there is no outcome yet before any run has finished', async () => {
    const res = await h.request('/api/v1/stats', {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(await res.json()).toMatchObject({
      finished_runs: 0,
      resolved_runs: 0,
      needs_human_runs: 0,
      resolved_rate: null,
    });
  });

  it('needs a credential', async () => {
    const res = await h.request('/api/v1/stats');
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
  });
});
