/**
 * The Events page: newest first, 100 per page, filters by level, service, session, source and
 * instance, and a table that refreshes every 5 s with the filters kept.
 */
import { type Context, Hono } from 'hono';

import { dataVersion } from '../../db/index.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { cachedFor } from '../ttl-cache.js';
import { versionCache } from '../version-cache.js';
import { EVENT_LEVELS, EVENT_SOURCES, type EventQuery, parseEventQuery } from '../event-query.js';
import { instanceChoices } from '../instance-filter.js';
import { pageInfo } from '../pagination.js';
import { Fragment, htmlBytes, isHtmx, page, renderView } from '../render.js';
import { QUICK_RANGES } from '../time-range.js';

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
  const knownInstances = cachedFor(
    SERVICES_TTL_MS,
    () => deps.clock.now(),
    () => stores.events.instancesAwaited(),
  );

  // Read awaited: with the fleet's PostgreSQL a network hop away, the loop serves other
  // requests and running sessions' streams while the rows cross it.
  const tableData = async (query: EventQuery, pageNo: number, oob: boolean) => {
    // Counted for "101–200 of 1,234" (indexed filters keep it cheap; see migration 0014).
    const groups = query.view === 'groups';
    const count = () =>
      groups
        ? stores.eventGroups.countAwaited(query.filter)
        : stores.events.countAwaited(query.filter);
    const read = async (offset: number) => {
      const slice = { limit: EVENTS_PAGE_SIZE, offset };
      return groups
        ? {
            rows: [],
            groupRows: await stores.eventGroups.listAwaited({ ...query.filter, ...slice }),
          }
        : { rows: await stores.events.listAwaited({ ...query.filter, ...slice }), groupRows: [] };
    };
    // The count and the page read side by side (one round trip's wait, not two); a page past
    // the last is read again as the last.
    const asked = (pageNo - 1) * EVENTS_PAGE_SIZE;
    const [total, first] = await Promise.all([count(), read(asked)]);
    const pager = pageInfo(pageNo, EVENTS_PAGE_SIZE, total);
    pageNo = pager.page;
    const { rows, groupRows } = pager.offset === asked ? first : await read(pager.offset);
    const filterQs = new URLSearchParams(
      Object.entries(query.raw).filter(([, value]) => value !== ''),
    ).toString();
    return {
      q: query.raw,
      problems: query.problems,
      pageNo,
      pager,
      groups,
      groupRows,
      rows,
      hasNext: pager.page < pager.pages,
      pageHref: (n: number) => `/events?${filterQs === '' ? '' : `${filterQs}&`}page=${n}`,
      oob,
    };
  };

  // Every open Events tab asks again every 5 s, mostly for the same filters while nothing was
  // written; reading and rendering 100 rows is most of a request, so the rendered table is kept
  // until the database changes. It holds nothing specific to the signed-in user (no CSRF token).
  const tables = versionCache<Fragment>(dataVersion(stores.db), TABLE_CACHE_SIZE);
  const tableHtml = (c: Context, query: EventQuery, pageNo: number, oob: boolean) => {
    // A quick range moves with the clock: a cached table lasts at most its minute.
    const minute = query.raw.range ? Math.floor(deps.clock.now() / 60_000) : 0;
    const key = JSON.stringify([oob, pageNo, query.raw, minute]);
    return tables(
      key,
      async () =>
        new Fragment(renderView(c, 'partials/event-table', await tableData(query, pageNo, oob))),
    );
  };

  app.get('/events', async (c) => {
    const timeZone = c.get('app').timeZone;
    const query = parseEventQuery((n) => c.req.query(n), deps.clock.now(), timeZone);
    const pageNo = pageNumber(c.req.query('page'));
    if (isHtmx(c)) return htmlBytes(c, (await tableHtml(c, query, pageNo, true)).bytes);
    return page(
      c,
      'pages/events',
      { title: 'Events', nav: 'events' },
      {
        q: query.raw,
        pageNo,
        levels: EVENT_LEVELS,
        sources: EVENT_SOURCES,
        quickRanges: QUICK_RANGES,
        timeZone,
        services: await knownServices(),
        instances: instanceChoices(await knownInstances(), query.raw.instance),
        table: await tableHtml(c, query, pageNo, false),
      },
    );
  });

  return app;
}
