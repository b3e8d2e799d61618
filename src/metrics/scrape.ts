/**
 * One /metrics answer in the Prometheus text format. What the database holds is read once per
 * scrape through `stored()` (so a restart resets nothing and every process on the same file
 * agrees); the runner's state through `runner()`; latencies come from the process registry.
 */
import { Gauge, Registry } from 'prom-client';

import { enableProcessMetrics, processRegistry } from './instruments.js';
import { StoredHistogram } from './stored-histogram.js';
import type { StoredCounts } from './stored-counts.js';
import { storedTotals } from './totals.js';

export type { StoredCounts } from './stored-counts.js';

/** Session duration buckets, seconds: a quick check to a run at the 30-minute default timeout. */
export const SESSION_DURATION_BUCKETS = [10, 30, 60, 120, 300, 600, 900, 1800, 3600];

export interface MetricsSources {
  /** Read at every scrape, with SESSION_DURATION_BUCKETS as the duration bounds. */
  stored(bounds: readonly number[]): Promise<StoredCounts>;
  /** Chains waiting in the scheduler's queue, and whether one is running. */
  runner(): { queued: number; running: boolean };
}

export interface Scrape {
  contentType: string;
  render(): Promise<string>;
}

function gauge(registry: Registry, name: string, help: string, labelNames: string[] = []) {
  return new Gauge({ name, help, labelNames, registers: [registry] });
}

export function createScrape(sources: MetricsSources): Scrape {
  enableProcessMetrics();
  const registry = new Registry();
  const sessions = gauge(
    registry,
    'watchkeeper_sessions',
    'Sessions in the database, by status and tier',
    ['status', 'tier'],
  );
  const durations = new StoredHistogram({
    name: 'watchkeeper_session_duration_seconds',
    help: 'Durations of the ended sessions in the database (start to end), by tier',
    labelNames: ['tier'],
    buckets: SESSION_DURATION_BUCKETS,
  });
  registry.registerMetric(durations);
  const cost = gauge(
    registry,
    'watchkeeper_session_cost_usd',
    'Cost the CLI reported, summed over the sessions in the database, by tier (US dollars)',
    ['tier'],
  );
  const tokens = gauge(
    registry,
    'watchkeeper_session_tokens',
    'Tokens the CLI reported, summed over the sessions in the database, by tier and kind ' +
      '(input, output, cache_read, cache_write)',
    ['tier', 'kind'],
  );
  const events = gauge(registry, 'watchkeeper_events', 'Events in the database, by level', [
    'level',
  ]);
  const memories = gauge(
    registry,
    'watchkeeper_memories',
    'Memories, by state (active, or inactive: decayed, superseded, deactivated, archived)',
    ['state'],
  );
  const remediations = gauge(
    registry,
    'watchkeeper_remediations',
    'Restarts and redeployments recorded (let through by the cooldown guard, or reported), by action',
    ['action'],
  );
  const refusals = gauge(
    registry,
    'watchkeeper_guard_refusals',
    'Restarts and redeployments the cooldown guard refused, by action',
    ['action'],
  );
  const deliveries = gauge(
    registry,
    'watchkeeper_notification_deliveries',
    'Deliveries of notifications to their targets, by status (failed: gave up after every retry)',
    ['status'],
  );
  const queued = gauge(
    registry,
    'watchkeeper_queue_depth',
    "Runs waiting in the scheduler's queue behind the running one",
  );
  const running = gauge(registry, 'watchkeeper_session_running', '1 while a session runs, else 0');
  const totals = storedTotals(registry);

  const fill = async () => {
    const s = await sources.stored(SESSION_DURATION_BUCKETS);
    const gauges = [sessions, cost, tokens, events, memories, remediations, refusals, deliveries];
    for (const g of gauges) g.reset();
    for (const r of s.sessions) sessions.set({ status: r.status, tier: r.tier }, r.count);
    durations.setCounts(
      s.durations.map((d) => ({
        labels: { tier: d.tier },
        cumulative: d.cumulative,
        count: d.count,
        sum: d.sumSeconds,
      })),
    );
    for (const r of s.costUsd) cost.set({ tier: r.tier }, r.usd);
    for (const r of s.tokens) tokens.set({ tier: r.tier, kind: r.kind }, r.count);
    for (const r of s.events) events.set({ level: r.level }, r.count);
    memories.set({ state: 'active' }, s.memories.active);
    memories.set({ state: 'inactive' }, s.memories.inactive);
    for (const r of s.remediations) remediations.set({ action: r.action }, r.count);
    for (const r of s.guardRefusals) refusals.set({ action: r.action }, r.count);
    for (const r of s.notificationDeliveries) deliveries.set({ status: r.status }, r.count);
    totals(s);
    const runner = sources.runner();
    queued.set(runner.queued);
    running.set(runner.running ? 1 : 0);
  };

  return {
    contentType: registry.contentType,
    async render() {
      await fill();
      return Registry.merge([processRegistry, registry]).metrics();
    },
  };
}
