/**
 * The one way the dashboard shows a moment: `2026-01-31 23:05:09 CET`, in the operator's zone
 * (WATCHKEEPER_TZ), seconds included. The separators are no-break spaces so a timestamp never
 * wraps onto two lines, whatever column it sits in.
 */
const NBSP = '\u00a0';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'short',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** `YYYY-MM-DD HH:MM:SS ZONE` in `timeZone`, or `-` for no time. */
export function formatTime(ms: number | null, timeZone: string): string {
  if (ms === null) return '-';
  const parts: Record<string, string> = {};
  for (const p of formatterFor(timeZone).formatToParts(ms)) parts[p.type] = p.value;
  const date = `${parts.year}-${parts.month}-${parts.day}`;
  const clock = `${parts.hour}:${parts.minute}:${parts.second}`;
  return [date, clock, parts.timeZoneName].join(NBSP);
}

/** The time-of-day part of `formatTime` (`23:05:09 CET`). */
export function formatTimeOfDay(ms: number, timeZone: string): string {
  return formatTime(ms, timeZone).slice(11);
}

/** The date part of `formatTime` (`2026-01-31`), in the same zone. */
export function formatDate(ms: number, timeZone: string): string {
  return formatTime(ms, timeZone).slice(0, 10);
}

/**
 * `formatTime` as a `<time>` element (the stylesheet keeps it on one line), for templates to
 * insert unescaped: it holds digits, dashes, colons, letters and the ISO instant only.
 */
export function formatTimeElement(ms: number | null, timeZone: string): string {
  if (ms === null) return '-';
  return `<time datetime="${new Date(ms).toISOString()}">${formatTime(ms, timeZone)}</time>`;
}

/**
 * When a repeated line was first and last seen, to the minute: `09:00–09:55 UTC` within one day,
 * `2026-01-30 23:50–2026-01-31 00:10 UTC` across midnight.
 */
export function formatSpan(first: number, last: number, timeZone: string): string {
  const a = formatTime(first, timeZone);
  const b = formatTime(last, timeZone);
  const zone = b.slice(20);
  if (a.slice(0, 10) === b.slice(0, 10))
    return `${a.slice(11, 16)}–${b.slice(11, 16)}${NBSP}${zone}`;
  return `${a.slice(0, 16)}–${b.slice(0, 16)}${NBSP}${zone}`;
}
