/**
 * A time range from a query string, for the Sessions and Events filters: `range` (a quick range
 * back from now: 1h, 24h, 7d, 30d) or `from`/`to` (ISO times or a datetime-local value, read in
 * `timeZone` when they carry no zone). Never throws: what cannot be used is listed in `problems`.
 */
export const QUICK_RANGES = ['1h', '24h', '7d', '30d'] as const;
const RANGE_MS: Record<string, number> = {
  '1h': 3_600_000,
  '24h': 86_400_000,
  '7d': 7 * 86_400_000,
  '30d': 30 * 86_400_000,
};

export interface TimeRangeQuery {
  raw: { range: string; from: string; to: string };
  from?: number;
  to?: number;
  problems: { field: 'range' | 'from' | 'to'; message: string }[];
}

/** How far `timeZone`'s wall clock is ahead of UTC at `at` (ms). */
function zoneOffset(at: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(at);
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second'));
  return wall - Math.floor(at / 1000) * 1000;
}

/**
 * Epoch ms of an ISO time, or of a `YYYY-MM-DD[THH:MM[:SS]]` without a zone read as a wall time
 * in `timeZone` (the dashboard's WATCHKEEPER_TZ; UTC for the API); null for anything else.
 */
export function parseTime(text: string, timeZone = 'UTC'): number | null {
  const t = text.trim().replace(' ', 'T');
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?)?(Z|[+-]\d{2}:?\d{2})?$/i.test(t))
    return null;
  if (/(Z|[+-]\d{2}:?\d{2})$/i.test(t)) {
    const ms = Date.parse(t);
    return Number.isFinite(ms) ? ms : null;
  }
  const wall = Date.parse(`${t.length === 10 ? `${t}T00:00` : t}Z`);
  if (!Number.isFinite(wall)) return null;
  if (timeZone === 'UTC') return wall;
  // The offset at the wall time read as UTC, corrected once for a change of offset between.
  const first = wall - zoneOffset(wall, timeZone);
  return wall - zoneOffset(first, timeZone);
}

export function parseTimeRange(
  q: (name: string) => string | undefined,
  now: number,
  timeZone = 'UTC',
): TimeRangeQuery {
  const raw = {
    range: (q('range') ?? '').trim().toLowerCase(),
    from: (q('from') ?? '').trim(),
    to: (q('to') ?? '').trim(),
  };
  const out: TimeRangeQuery = { raw, problems: [] };
  if (raw.range !== '') {
    const ms = RANGE_MS[raw.range];
    if (ms === undefined) {
      out.problems.push({ field: 'range', message: `must be one of ${QUICK_RANGES.join(', ')}` });
    } else {
      out.from = now - ms;
      return out;
    }
  }
  for (const field of ['from', 'to'] as const) {
    if (raw[field] === '') continue;
    const ms = parseTime(raw[field], timeZone);
    if (ms === null) {
      out.problems.push({
        field,
        message: `must be a time such as 2026-11-23T14:00 (${timeZone}) or 2026-11-23T14:00:00+01:00`,
      });
    } else out[field] = ms;
  }
  if (out.from !== undefined && out.to !== undefined && out.to <= out.from) {
    out.problems.push({ field: 'to', message: 'must be after from' });
    delete out.to;
  }
  return out;
}
