/** @module metrics: Prometheus measurements (prom-client, in registries of our own). */
export { noteUnhandledError, type ProcessHealth, processHealth } from './health.js';
export {
  embeddingDuration,
  enableProcessMetrics,
  processRegistry,
  searchDuration,
  timeEmbedding,
} from './instruments.js';
export {
  createScrape,
  type MetricsSources,
  type Scrape,
  SESSION_DURATION_BUCKETS,
  type StoredCounts,
} from './scrape.js';
export { type BucketCounts, StoredHistogram } from './stored-histogram.js';
