/** Event filters from a query string, shared by the Events page and the API. */
import { type EventFilter, type EventSource, eventTextQuery } from '../db/index.js';
import type { EventLevel } from '../stream/index.js';
import { INSTANCE_PROBLEM, parseInstance } from './instance-filter.js';
import { parseTimeRange } from './time-range.js';

export const EVENT_LEVELS: readonly EventLevel[] = ['info', 'warning', 'critical'];
export const EVENT_SOURCES: readonly EventSource[] = ['agent', 'system'];
export const EVENT_VIEWS = ['list', 'groups'] as const;
const MAX_SERVICE_LENGTH = 200;
const MAX_TEXT_LENGTH = 200;

type Field =
  | 'level'
  | 'service'
  | 'session'
  | 'source'
  | 'q'
  | 'range'
  | 'from'
  | 'to'
  | 'acked'
  | 'view'
  | 'instance';

export interface EventQuery {
  /** The filter values as sent (trimmed), shown back in the form even when ignored. */
  raw: Record<Field, string>;
  filter: Omit<EventFilter, 'limit' | 'offset'>;
  /** `groups`: identical events as one row each, with a count. */
  view: (typeof EVENT_VIEWS)[number];
  /** Values that could not be used; the page ignores them, the API answers 400. */
  problems: { field: Field; message: string }[];
}

/**
 * Event filters from a query string (`level`, `service`, `session`, `source`, `q` for words in
 * the message or service, `range` or `from`/`to`, `acked=show` to include acknowledged events,
 * `view=groups`, `instance`: one instance's events, grouped or not). Never throws:
 * each value that is not understood is left out of `filter` and listed in `problems`.
 */
export function parseEventQuery(
  q: (name: string) => string | undefined,
  now: number = Date.now(),
  /** The zone of a from/to without one: the dashboard's WATCHKEEPER_TZ, UTC for the API. */
  timeZone = 'UTC',
): EventQuery {
  const time = parseTimeRange(q, now, timeZone);
  const raw = {
    level: (q('level') ?? '').trim(),
    service: (q('service') ?? '').trim(),
    session: (q('session') ?? '').trim(),
    source: (q('source') ?? '').trim(),
    q: (q('q') ?? '').trim(),
    ...time.raw,
    acked: (q('acked') ?? '').trim().toLowerCase(),
    view: (q('view') ?? '').trim().toLowerCase(),
    instance: (q('instance') ?? '').trim(),
  };
  const filter: EventQuery['filter'] = { includeAcked: false };
  const problems: EventQuery['problems'] = [...time.problems];
  if (time.from !== undefined) filter.from = time.from;
  if (time.to !== undefined) filter.to = time.to;

  const level = raw.level.toLowerCase();
  if ((EVENT_LEVELS as readonly string[]).includes(level)) filter.level = level as EventLevel;
  else if (level !== '')
    problems.push({ field: 'level', message: `must be one of ${EVENT_LEVELS.join(', ')}` });

  const source = raw.source.toLowerCase();
  if ((EVENT_SOURCES as readonly string[]).includes(source)) filter.source = source as EventSource;
  else if (source !== '')
    problems.push({ field: 'source', message: `must be one of ${EVENT_SOURCES.join(', ')}` });

  // Services are stored trimmed and lower-cased (stream/names), so the filter is too.
  if (raw.service.length > MAX_SERVICE_LENGTH)
    problems.push({ field: 'service', message: `at most ${MAX_SERVICE_LENGTH} characters` });
  else if (raw.service !== '') filter.service = raw.service.toLowerCase();

  const session = /^#?(\d{1,15})$/.exec(raw.session);
  if (session) filter.sessionId = Number(session[1]);
  else if (raw.session !== '')
    problems.push({ field: 'session', message: 'must be a session number' });

  if (raw.q.length > MAX_TEXT_LENGTH)
    problems.push({ field: 'q', message: `at most ${MAX_TEXT_LENGTH} characters` });
  else if (raw.q !== '') {
    const text = eventTextQuery(raw.q);
    if (text) filter.text = text;
    else problems.push({ field: 'q', message: 'must contain a letter or a digit' });
  }

  if (['show', 'true', '1', 'yes', 'on'].includes(raw.acked)) filter.includeAcked = true;
  else if (!['', 'hide', 'false', '0', 'no', 'off'].includes(raw.acked))
    problems.push({ field: 'acked', message: 'must be show or hide' });

  const instance = parseInstance(raw.instance);
  if (instance) filter.instance = instance;
  else if (instance === null) problems.push({ field: 'instance', message: INSTANCE_PROBLEM });

  let view: EventQuery['view'] = 'list';
  if (raw.view === 'groups') view = 'groups';
  else if (raw.view !== '' && raw.view !== 'list')
    problems.push({ field: 'view', message: 'must be list or groups' });

  return { raw, filter, view, problems };
}
