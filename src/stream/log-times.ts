/**
 * The arrival times kept beside a session log (`sessions/ID.times`): one `OFFSET EPOCH_MS` line
 * per chunk of the CLI's stdout, the offset being where the chunk starts in the log. The log
 * itself stays the CLI's bytes, unmodified; a line's time is its chunk's. Pure: text in, values out.
 */

/** Where the times of the log at `logPath` are kept. */
export function logTimesPath(logPath: string): string {
  return logPath.replace(/\.ndjson$/, '') + '.times';
}

/** One entry of the times file. */
export function logTimeLine(offset: number, at: number): string {
  return `${offset} ${at}\n`;
}

/** The times file's text as [offset, epoch ms] pairs, in file order; bad lines are skipped. */
export function parseLogTimes(text: string): [number, number][] {
  return text
    .split('\n')
    .map((l) => l.split(' ').map(Number))
    .filter((p): p is [number, number] => p.length === 2 && p.every(Number.isFinite));
}

/** The time of the chunk that holds byte `at`: the last one starting at or before it. */
export function logTimeAt(times: readonly [number, number][], at: number): number | null {
  let lo = 0;
  let hi = times.length - 1;
  let found: number | null = null;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid]![0] <= at) {
      found = times[mid]![1];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}
