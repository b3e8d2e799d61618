/**
 * The process's own measurements, for what the database does not hold: how long embedding and
 * search take. They live in one registry of this module (never prom-client's global one), with
 * the process metrics (CPU, memory, event loop, handles) added when /metrics is first set up.
 */
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export const processRegistry = new Registry();

// From a cached local batch (milliseconds) to a remote backend at its timeout (10 s default).
const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const embeddingDuration = new Histogram({
  name: 'watchkeeper_embedding_duration_seconds',
  help: 'Time to embed one batch of texts, by backend, kind (query or document) and outcome',
  labelNames: ['backend', 'kind', 'outcome'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [processRegistry],
});

export const searchDuration = new Histogram({
  name: 'watchkeeper_search_duration_seconds',
  help: 'Time of one memory search (embedding the query and ranking), by mode (hybrid or lexical)',
  labelNames: ['mode'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [processRegistry],
});

let processMetrics = false;

/** Adds the standard process metrics once (a CLI command that never serves /metrics skips them). */
export function enableProcessMetrics(): void {
  if (processMetrics) return;
  processMetrics = true;
  collectDefaultMetrics({ register: processRegistry });
}

/** Times `work` into `embeddingDuration`, failures included. */
export async function timeEmbedding<T>(
  labels: { backend: string; kind: 'query' | 'document' },
  work: () => Promise<T>,
): Promise<T> {
  const end = embeddingDuration.startTimer(labels);
  try {
    const out = await work();
    end({ outcome: 'ok' });
    return out;
  } catch (err) {
    end({ outcome: 'error' });
    throw err;
  }
}
