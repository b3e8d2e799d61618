/**
 * Session filters from a query string (status, trigger, tier, time range, instance), for the
 * page and the API.
 */
import { SESSION_STATUSES, SESSION_TRIGGERS, type SessionFilter } from '../db/index.js';
import type { SessionStatus, SessionTrigger } from '../db/index.js';
import { INSTANCE_PROBLEM, parseInstance } from './instance-filter.js';
import { parseTimeRange } from './time-range.js';

type Field = 'status' | 'trigger' | 'tier' | 'range' | 'from' | 'to' | 'instance';

export interface SessionQuery {
  /** The values as sent (trimmed), shown back in the form. */
  raw: Record<Field, string>;
  filter: SessionFilter;
  /** Values that could not be used; the page ignores them, the API answers 400. */
  problems: { field: Field; message: string }[];
}

export function parseSessionQuery(
  q: (name: string) => string | undefined,
  now: number,
  /** The zone of a from/to without one: the dashboard's WATCHKEEPER_TZ, UTC for the API. */
  timeZone = 'UTC',
): SessionQuery {
  const time = parseTimeRange(q, now, timeZone);
  const raw = {
    status: (q('status') ?? '').trim().toLowerCase(),
    trigger: (q('trigger') ?? '').trim().toLowerCase(),
    tier: (q('tier') ?? '').trim(),
    ...time.raw,
    instance: (q('instance') ?? '').trim(),
  };
  const filter: SessionFilter = {};
  const problems: SessionQuery['problems'] = [...time.problems];
  if (time.from !== undefined) filter.from = time.from;
  if (time.to !== undefined) filter.to = time.to;
  if ((SESSION_STATUSES as readonly string[]).includes(raw.status))
    filter.status = raw.status as SessionStatus;
  else if (raw.status !== '')
    problems.push({ field: 'status', message: `must be one of ${SESSION_STATUSES.join(', ')}` });
  if ((SESSION_TRIGGERS as readonly string[]).includes(raw.trigger))
    filter.trigger = raw.trigger as SessionTrigger;
  else if (raw.trigger !== '')
    problems.push({ field: 'trigger', message: `must be one of ${SESSION_TRIGGERS.join(', ')}` });
  if (/^[123]$/.test(raw.tier)) filter.tier = Number(raw.tier);
  else if (raw.tier !== '') problems.push({ field: 'tier', message: 'must be 1, 2 or 3' });
  const instance = parseInstance(raw.instance);
  if (instance) filter.instance = instance;
  else if (instance === null) problems.push({ field: 'instance', message: INSTANCE_PROBLEM });
  return { raw, filter, problems };
}

/** The filters as a query string (without page), for links that keep them. */
export function filterQueryString(raw: Record<string, string>): string {
  return new URLSearchParams(Object.entries(raw).filter(([, v]) => v !== '')).toString();
}
