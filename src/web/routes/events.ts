/**
 * The Events page: newest first, 100 per page, filters by level, service, session and source,
 * and a table that refreshes every 5 s with the filters kept. Also the filter parsing that the
 * events API shares.
 */
import { type Context, Hono } from 'hono';

import { dataVersion, type EventFilter, type EventSource } from '../../db/index.js';
import type { EventLevel } from '../../stream/index.js';
import type { AppEnv } from '../app.js';
import type { WebDeps } from '../deps.js';
import { isHtmx, page, renderView } from '../render.js';

export const EVENT_LEVELS: readonly EventLevel[] = ['info', 'warning', 'critical'];
export const EVENT_SOURCES: readonly EventSource[] = ['agent', 'system'];
export const EVENTS_PAGE_SIZE = 100;
const SERVICES_TTL_MS = 10_000;
const MAX_SERVICE_LENGTH = 200;
const MAX_PAGE = 10_000;
const TABLE_CACHE_SIZE = 64;

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

function pageNumber(value: string | undefined): number {
  const n = Number(value ?? '1');
  return Number.isInteger(n) && n >= 1 && n <= MAX_PAGE ? n : 1;
}

export function eventRoutes(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { stores } = deps;
  let services: { at: number; list: string[] } = { at: -Infinity, list: [] };
  const knownServices = () => {
    const now = deps.clock.now();
    if (now - services.at > SERVICES_TTL_MS)
      services = { at: now, list: stores.stats.eventServices() };
    return services.list;
  };

  const tableData = (query: EventQuery, pageNo: number, oob: boolean) => {
    // One row more than a page tells whether there is a next page, without counting the table.
    const rows = stores.events.list({
      ...query.filter,
      limit: EVENTS_PAGE_SIZE + 1,
      offset: (pageNo - 1) * EVENTS_PAGE_SIZE,
    });
    const filterQs = new URLSearchParams(
      Object.entries(query.raw).filter(([, value]) => value !== ''),
    ).toString();
    return {
      q: query.raw,
      problems: query.problems,
      pageNo,
      rows: rows.slice(0, EVENTS_PAGE_SIZE),
      hasNext: rows.length > EVENTS_PAGE_SIZE,
      pageHref: (n: number) => `/events?${filterQs === '' ? '' : `${filterQs}&`}page=${n}`,
      oob,
    };
  };

  // Every open Events tab asks again every 5 s, mostly for the same filters while nothing was
  // written; reading and rendering 100 rows is most of a request, so the rendered table is kept
  // until the database changes. It holds nothing specific to the signed-in user (no CSRF token).
  const version = dataVersion(stores.db);
  const tables = new Map<string, { version: string; html: string }>();
  const tableHtml = (c: Context, query: EventQuery, pageNo: number, oob: boolean): string => {
    const key = JSON.stringify([oob, pageNo, query.raw]);
    const v = version();
    const cached = tables.get(key);
    if (cached?.version === v) return cached.html;
    const html = renderView(c, 'partials/event-table', tableData(query, pageNo, oob));
    tables.delete(key);
    tables.set(key, { version: v, html });
    if (tables.size > TABLE_CACHE_SIZE) tables.delete(tables.keys().next().value!);
    return html;
  };

  app.get('/events', (c) => {
    const query = parseEventQuery((n) => c.req.query(n));
    const pageNo = pageNumber(c.req.query('page'));
    if (isHtmx(c)) return c.html(tableHtml(c, query, pageNo, true));
    return page(
      c,
      'pages/events',
      { title: 'Events', nav: 'events' },
      {
        q: query.raw,
        pageNo,
        levels: EVENT_LEVELS,
        sources: EVENT_SOURCES,
        services: knownServices(),
        table: tableHtml(c, query, pageNo, false),
      },
    );
  });

  return app;
}
