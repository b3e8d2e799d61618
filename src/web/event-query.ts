/** Event filters from a query string, shared by the Events page and the API. */
import type { EventFilter, EventSource } from '../db/index.js';
import type { EventLevel } from '../stream/index.js';

export const EVENT_LEVELS: readonly EventLevel[] = ['info', 'warning', 'critical'];
export const EVENT_SOURCES: readonly EventSource[] = ['agent', 'system'];
const MAX_SERVICE_LENGTH = 200;

export interface EventQuery {
  /** The filter values as sent (trimmed), shown back in the form even when ignored. */
  raw: { level: string; service: string; session: string; source: string };
  filter: Omit<EventFilter, 'limit' | 'offset'>;
  /** Values that could not be used; the page ignores them, the API answers 400. */
  problems: { field: 'level' | 'service' | 'session' | 'source'; message: string }[];
}

/**
 * Event filters from a query string (`level`, `service`, `session`, `source`). Never throws:
 * each value that is not understood is left out of `filter` and listed in `problems`.
 */
export function parseEventQuery(q: (name: string) => string | undefined): EventQuery {
  const raw = {
    level: (q('level') ?? '').trim(),
    service: (q('service') ?? '').trim(),
    session: (q('session') ?? '').trim(),
    source: (q('source') ?? '').trim(),
  };
  const filter: EventQuery['filter'] = {};
  const problems: EventQuery['problems'] = [];

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

  return { raw, filter, problems };
}
