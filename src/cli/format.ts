/** Plain-text tables for the terminal. JSON output goes through src/db/json.ts instead. */

/** `2026-11-21 22:30` in UTC; `-` for unset. */
export function shortTime(ms: number | null): string {
  if (ms === null) return '-';
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
}

export function clip(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}

/** Left-aligned columns separated by two spaces; the last column is not padded. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n') + '\n';
}

export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
