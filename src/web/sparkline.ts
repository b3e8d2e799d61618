/** A small inline SVG of a memory's confidence over time, built as data (the view escapes nothing here). */

export interface SparkPoint {
  at: number;
  value: number;
}

export interface Sparkline {
  width: number;
  height: number;
  path: string;
  /** y of the 0.3 deactivation threshold line. */
  thresholdY: number;
}

export function sparkline(
  points: readonly SparkPoint[],
  width = 160,
  height = 32,
  threshold = 0.3,
): Sparkline | null {
  if (points.length === 0) return null;
  const t0 = points[0]!.at;
  const span = Math.max(1, points[points.length - 1]!.at - t0);
  const x = (at: number) =>
    points.length === 1 ? width / 2 : ((at - t0) / span) * (width - 4) + 2;
  const y = (v: number) => height - 2 - v * (height - 4);
  // A step line: confidence holds until the next change.
  let path = `M${x(points[0]!.at).toFixed(1)},${y(points[0]!.value).toFixed(1)}`;
  for (let i = 1; i < points.length; i += 1) {
    const p = points[i]!;
    path += ` H${x(p.at).toFixed(1)} V${y(p.value).toFixed(1)}`;
  }
  if (points.length === 1) path += ` h1`;
  return { width, height, path, thresholdY: Number(y(threshold).toFixed(1)) };
}
