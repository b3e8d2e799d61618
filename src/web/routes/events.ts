/**
 * The Events page: newest first, 100 per page, filters by level, service, session and source,
 * and a table that refreshes every 5 s with the filters kept.
 */
import { type Context, Hono } from 'hono';

import { dataVersion } from '../../db/index.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { cachedFor } from '../ttl-cache.js';
import { EVENT_LEVELS, EVENT_SOURCES, type EventQuery, parseEventQuery } from '../event-query.js';
import { isHtmx, page, renderView } from '../render.js';

const EVENTS_PAGE_SIZE = 100;
const SERVICES_TTL_MS = 10_000;
const MAX_PAGE = 10_000;
const TABLE_CACHE_SIZE = 64;

function pageNumber(value: string | undefined): number {
  const n = Number(value ?? '1');
  return Number.isInteger(n) && n >= 1 && n <= MAX_PAGE ? n : 1;
}

export function eventRoutes(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { stores } = deps;
  const knownServices = cachedFor(
    SERVICES_TTL_MS,
    () => deps.clock.now(),
    () => stores.stats.eventServices(),
  );

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
