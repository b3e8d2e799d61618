/**
 * The stored totals as counters (`_total`), for rate() and increase() in Prometheus and
 * Grafana: what has been run, observed, spent and sent so far. The gauges beside them in
 * scrape.ts keep the current values (and the names dashboards already use).
 */
import type { Registry } from 'prom-client';

import type { StoredCounts } from './stored-counts.js';
import { StoredCounter, type StoredTotal } from './stored-counter.js';

/** A session in one of these has ended: its count only grows (a running one moves on). */
const RUNNING = 'running';
/** A delivery still pending can still become sent or failed: only those two are totals. */
const FINAL_DELIVERIES = new Set(['sent', 'failed']);

const TOTALS: {
  name: string;
  help: string;
  labelNames: string[];
  read: (s: StoredCounts) => StoredTotal[];
}[] = [
  {
    name: 'watchkeeper_sessions_total',
    help: 'Sessions that ended, by status and tier',
    labelNames: ['status', 'tier'],
    read: (s) =>
      s.sessions
        .filter((r) => r.status !== RUNNING)
        .map((r) => ({ labels: { status: r.status, tier: r.tier }, total: r.count })),
  },
  {
    name: 'watchkeeper_session_cost_usd_total',
    help: 'Cost the CLI reported for sessions, by tier (US dollars)',
    labelNames: ['tier'],
    read: (s) => s.costUsd.map((r) => ({ labels: { tier: r.tier }, total: r.usd })),
  },
  {
    name: 'watchkeeper_session_tokens_total',
    help: 'Tokens the CLI reported for sessions, by tier and kind (input, output, cache_read, cache_write)',
    labelNames: ['tier', 'kind'],
    read: (s) => s.tokens.map((r) => ({ labels: { tier: r.tier, kind: r.kind }, total: r.count })),
  },
  {
    name: 'watchkeeper_events_total',
    help: 'Events recorded, by level',
    labelNames: ['level'],
    read: (s) => s.events.map((r) => ({ labels: { level: r.level }, total: r.count })),
  },
  {
    name: 'watchkeeper_memory_changes_total',
    help: 'Memories observed (created) and observed again (reinforced), by action',
    labelNames: ['action'],
    read: (s) => s.memoryChanges.map((r) => ({ labels: { action: r.action }, total: r.count })),
  },
  {
    name: 'watchkeeper_remediations_total',
    help: 'Restarts and redeployments recorded, by action',
    labelNames: ['action'],
    read: (s) => s.remediations.map((r) => ({ labels: { action: r.action }, total: r.count })),
  },
  {
    name: 'watchkeeper_guard_refusals_total',
    help: 'Restarts and redeployments the cooldown guard refused, by action',
    labelNames: ['action'],
    read: (s) => s.guardRefusals.map((r) => ({ labels: { action: r.action }, total: r.count })),
  },
  {
    name: 'watchkeeper_notification_deliveries_total',
    help: 'Notification deliveries that ended, by status (sent, or failed after every retry)',
    labelNames: ['status'],
    read: (s) =>
      s.notificationDeliveries
        .filter((r) => FINAL_DELIVERIES.has(r.status))
        .map((r) => ({ labels: { status: r.status }, total: r.count })),
  },
];

/** Registers the counters; the function returned brings them up to the stored totals. */
export function storedTotals(registry: Registry): (s: StoredCounts) => void {
  const counters = TOTALS.map(({ read, ...config }) => {
    const counter = new StoredCounter(config);
    registry.registerMetric(counter);
    return { counter, read };
  });
  return (s) => {
    for (const { counter, read } of counters) counter.setTotals(read(s));
  };
}
