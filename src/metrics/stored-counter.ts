/**
 * A counter over totals counted elsewhere (SQL over the stored rows), for Prometheus' rate() and
 * increase(). A stored total can go down (a prune deletes rows; a session leaves a status); a
 * counter must not, so each series starts at the first total this process reads and then only
 * grows by what the total grew since the last read. A restart starts again at the stored total,
 * which is no lower than before unless a prune ran (Prometheus then sees a counter reset).
 */
import { Counter } from 'prom-client';

export interface StoredTotal {
  labels: Record<string, string | number>;
  total: number;
}

interface Series {
  labels: Record<string, string | number>;
  stored: number;
  value: number;
}

export class StoredCounter extends Counter<string> {
  private readonly meta: { name: string; help: string };
  private readonly series = new Map<string, Series>();

  constructor(config: { name: string; help: string; labelNames: string[] }) {
    // Registered by the caller's registry alone: never prom-client's global one.
    super({ ...config, registers: [] });
    this.meta = { name: config.name, help: config.help };
  }

  /** The totals as stored now; what the counter reports follows them, never going down. */
  setTotals(rows: StoredTotal[]): void {
    for (const r of rows) {
      const key = JSON.stringify(r.labels);
      const seen = this.series.get(key);
      if (!seen) {
        this.series.set(key, { labels: r.labels, stored: r.total, value: r.total });
        continue;
      }
      if (r.total > seen.stored) seen.value += r.total - seen.stored;
      seen.stored = r.total;
    }
  }

  private samples() {
    const { name, help } = this.meta;
    const values = [...this.series.values()].map((s) => ({ labels: s.labels, value: s.value }));
    return { name, help, type: 'counter' as const, values, aggregator: 'sum' as const };
  }

  // The registry reads getForPromString when a metric has it, get() otherwise.
  getForPromString() {
    return Promise.resolve(this.samples());
  }

  override get() {
    return Promise.resolve(this.samples()) as unknown as ReturnType<Counter<string>['get']>;
  }
}
