/**
 * Read-only aggregates: the dashboard overview and stats API, and what /metrics reports.
 */
export * from './stats.js';
export * from './metrics.js';
