/** What the parser had to skip or repair in a session's stream, as one line for a system event. */
import type { StreamStats } from '../../stream/index.js';

function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;
  if (n >= 1024) return `${Math.round((n / 1024) * 10) / 10} KB`;
  return `${n} B`;
}

/** Null when nothing was skipped or repaired. */
export function streamIssuesText(stats: StreamStats, maxLineBytes: number): string | null {
  const parts: string[] = [];
  if (stats.oversizedLines > 0) {
    parts.push(`${stats.oversizedLines} over the ${formatBytes(maxLineBytes)} line limit`);
  }
  if (stats.nonJsonLines > 0) parts.push(`${stats.nonJsonLines} not JSON`);
  if (stats.invalidUtf8Lines > 0)
    parts.push(`${stats.invalidUtf8Lines} with invalid UTF-8 (read with replacement characters)`);
  if (parts.length === 0) return null;
  return parts.join(', ');
}
