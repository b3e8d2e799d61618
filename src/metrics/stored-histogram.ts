/**
 * A histogram whose buckets are counted elsewhere (by SQL over the stored rows) and handed in
 * whole before each scrape, instead of observed one value at a time: a restart loses nothing,
 * and a scrape costs one query whatever the number of rows.
 */
import { Histogram } from 'prom-client';

export interface BucketCounts {
  labels: Record<string, string | number>;
  /** Observations at or below each bound, in the order of the bounds. */
  cumulative: number[];
  count: number;
  sum: number;
}

type Sample = {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
};

export class StoredHistogram extends Histogram<string> {
  private readonly meta: { name: string; help: string; bounds: readonly number[] };
  private rows: BucketCounts[] = [];

  constructor(config: { name: string; help: string; labelNames: string[]; buckets: number[] }) {
    // Registered by the caller's registry alone: never prom-client's global one.
    super({ ...config, registers: [] });
    this.meta = { name: config.name, help: config.help, bounds: config.buckets };
  }

  /** The counts the next scrape reports (each row's `cumulative` has one entry per bound). */
  setCounts(rows: BucketCounts[]): void {
    this.rows = rows;
  }

  private samples() {
    const { name, help, bounds } = this.meta;
    const values: Sample[] = this.rows.flatMap((r) => [
      ...bounds.map((le, i) => ({
        labels: { ...r.labels, le },
        value: r.cumulative[i] ?? 0,
        metricName: `${name}_bucket`,
      })),
      { labels: { ...r.labels, le: '+Inf' }, value: r.count, metricName: `${name}_bucket` },
      { labels: r.labels, value: r.sum, metricName: `${name}_sum` },
      { labels: r.labels, value: r.count, metricName: `${name}_count` },
    ]);
    return { name, help, type: 'histogram' as const, values, aggregator: 'sum' as const };
  }

  // The registry reads getForPromString when a metric has it, get() otherwise: both answer
  // the stored counts.
  getForPromString() {
    return Promise.resolve(this.samples());
  }

  override get() {
    return Promise.resolve(this.samples()) as unknown as ReturnType<Histogram<string>['get']>;
  }
}
