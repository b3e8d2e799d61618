/**
 * A /metrics answer read by a Prometheus text-format parser (parse-prometheus-text-format, which
 * throws on any line that is not in the format). That parser folds a labelled histogram into one
 * series (its issue #13), so a histogram's TYPE line is read here and its `_bucket`, `_sum` and
 * `_count` samples are parsed as the plain series they are on the wire.
 */
import parsePrometheusTextFormat from 'parse-prometheus-text-format';

export interface Series {
  labels: Record<string, string>;
  value: number;
}

export interface Scraped {
  /** Family name -> its TYPE (lower case): gauge, counter, histogram... */
  types: Map<string, string>;
  /** Every series of a sample name (a histogram's are `NAME_bucket`, `NAME_sum`, `NAME_count`). */
  series(name: string): Series[];
  /** The value of the one series with exactly these labels (le included for buckets), or undefined. */
  value(name: string, labels?: Record<string, string | number>): number | undefined;
}

export function parseMetrics(text: string): Scraped {
  const types = new Map<string, string>();
  const lines = text.split('\n').filter((line) => {
    const histogram = /^# TYPE (\S+) histogram$/.exec(line);
    if (histogram) types.set(histogram[1]!, 'histogram');
    return !histogram;
  });
  const families = parsePrometheusTextFormat(lines.join('\n'));
  const byName = new Map<string, Series[]>();
  for (const f of families) {
    if (!types.has(f.name)) types.set(f.name, f.type.toLowerCase());
    // A histogram's series come label set by label set (buckets, sum, count, then the next), so
    // the same sample name starts again: gather them all.
    byName.set(f.name, [
      ...(byName.get(f.name) ?? []),
      ...f.metrics.map((m) => ({ labels: m.labels ?? {}, value: Number(m.value) })),
    ]);
  }
  const series = (name: string) => byName.get(name) ?? [];
  return {
    types,
    series,
    value(name, labels = {}) {
      const want = Object.entries(labels).map(([k, v]) => [k, String(v)] as const);
      return series(name).find(
        (s) =>
          Object.keys(s.labels).length === want.length && want.every(([k, v]) => s.labels[k] === v),
      )?.value;
    },
  };
}
