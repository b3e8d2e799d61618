/**
 * A small inline SVG of a memory's confidence over time, built as data (the view escapes nothing
 * here): a step line inside a plot area with a confidence axis (0, the 0.3 deactivation line, 1)
 * and a time axis from the first change to the last.
 */

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
  /** The plot area: the axes run along its left and bottom edges. */
  plot: { left: number; right: number; top: number; bottom: number };
  /** Confidence labels on the left axis. */
  yTicks: { y: number; label: string }[];
  /** Times on the bottom axis (the view formats `at`): the first change, and the last if later. */
  xTicks: { x: number; at: number; anchor: 'start' | 'end' | 'middle' }[];
}

const MARGIN = { left: 26, right: 6, top: 6, bottom: 16 };

export function sparkline(
  points: readonly SparkPoint[],
  width = 320,
  height = 84,
  threshold = 0.3,
): Sparkline | null {
  if (points.length === 0) return null;
  const plot = {
    left: MARGIN.left,
    right: width - MARGIN.right,
    top: MARGIN.top,
    bottom: height - MARGIN.bottom,
  };
  const t0 = points[0]!.at;
  const t1 = points[points.length - 1]!.at;
  const span = Math.max(1, t1 - t0);
  const single = t1 === t0;
  const x = (at: number) =>
    single
      ? (plot.left + plot.right) / 2
      : plot.left + ((at - t0) / span) * (plot.right - plot.left);
  const y = (v: number) => plot.bottom - v * (plot.bottom - plot.top);
  const f = (n: number) => n.toFixed(1);
  // A step line: confidence holds until the next change.
  let path = `M${f(x(points[0]!.at))},${f(y(points[0]!.value))}`;
  for (let i = 1; i < points.length; i += 1) {
    const p = points[i]!;
    path += ` H${f(x(p.at))} V${f(y(p.value))}`;
  }
  if (single) path += ` h1`;
  const round = (n: number) => Number(f(n));
  return {
    width,
    height,
    path,
    thresholdY: round(y(threshold)),
    plot,
    yTicks: [1, threshold, 0].map((v) => ({ y: round(y(v)), label: String(v) })),
    xTicks: single
      ? [{ x: round(x(t0)), at: t0, anchor: 'middle' }]
      : [
          { x: plot.left, at: t0, anchor: 'start' },
          { x: plot.right, at: t1, anchor: 'end' },
        ],
  };
}
