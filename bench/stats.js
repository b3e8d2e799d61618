/** Summary statistics for repeated measurements. */

export function median(values) {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function summarize(values) {
  return {
    n: values.length,
    median: median(values),
    min: Math.min(...values),
    max: Math.max(...values),
  };
}

/** Rounds to `digits` decimals (for display and JSON; raw timings keep full precision). */
export function round(value, digits) {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Megabytes per second, MB = 1e6 bytes. */
export function mbPerSecond(bytes, ms) {
  return bytes / 1e6 / (ms / 1000);
}
