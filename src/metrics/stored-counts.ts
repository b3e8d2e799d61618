/** What /metrics reads from the database at each scrape: the gauges and the counters share it. */

/** What the database holds, as `stored()` answers it (src/db/overview/metrics.ts reads it). */
export interface StoredCounts {
  sessions: { status: string; tier: number; count: number }[];
  durations: { tier: number; cumulative: number[]; count: number; sumSeconds: number }[];
  costUsd: { tier: number; usd: number }[];
  tokens: { tier: number; kind: string; count: number }[];
  events: { level: string; count: number }[];
  memories: { active: number; inactive: number };
  memoryChanges: { action: string; count: number }[];
  remediations: { action: string; count: number }[];
  guardRefusals: { action: string; count: number }[];
  notificationDeliveries: { status: string; count: number }[];
}
